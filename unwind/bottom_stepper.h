#pragma once
// Recognizes the outermost frame: the program entry point and the thread
// entry trampolines (`clone`, `clone3`). Runs first and answers
// stack_bottom or not_me.
//
// The entry point is `_start` by symbol, and also the code the ELF entry
// runs before its first instruction that does not fall through, found by
// disassembly: the dynamic loader's entry calls _dl_start and then, as
// `_dl_start_user` (no symbol of its own, or none at all in a stripped
// ld.so), _dl_init, which runs every library's constructors; a stripped
// executable's _start has no symbol either.

#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "binary/x86_decoder.h"
#include "unwind/frame_stepper.h"

namespace swprof {

class BottomStepper : public FrameStepper {
 public:
  StepperKind kind() const override { return StepperKind::kBottom; }
  // bottom or not_mine, by the pc alone.
  StepAnswer step(const StepInput& in, Registers& caller) override;

 private:
  using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;  // ELF vaddr [start, end)
  const Ranges& entry_ranges(const ElfBinary& binary, bool thread_entries);
  // Per binary: the program entry and thread entry function ranges.
  std::unordered_map<const ElfBinary*, std::pair<Ranges, Ranges>> cache_;
  std::optional<X86Decoder> decoder_;  // opened for the first binary with an entry point
  const ElfBinary* last_binary_ = nullptr;
  const std::pair<Ranges, Ranges>* last_ = nullptr;
};

}  // namespace swprof
