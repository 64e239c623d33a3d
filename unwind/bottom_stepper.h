#pragma once
// Recognizes the outermost frame: the program entry point `_start` and the
// thread entry trampolines (`clone`, `clone3`), by their symbols. Runs first
// and answers stack_bottom or not_me.

#include <unordered_map>
#include <utility>
#include <vector>

#include "unwind/frame_stepper.h"

namespace swprof {

class BottomStepper : public FrameStepper {
 public:
  StepperKind kind() const override { return StepperKind::kBottom; }
  bool claims_by_pc_only() const override { return true; }
  StepResult step_into(const StepInput& in, Registers& caller) override;

 private:
  using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;  // ELF vaddr [start, end)
  const Ranges& entry_ranges(const ElfBinary& binary, bool thread_entries);
  // Per binary: the program entry and thread entry function ranges.
  std::unordered_map<const ElfBinary*, std::pair<Ranges, Ranges>> cache_;
  const ElfBinary* last_binary_ = nullptr;
  const std::pair<Ranges, Ranges>* last_ = nullptr;
};

}  // namespace swprof
