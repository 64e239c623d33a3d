#pragma once
// The Go stepper: Go functions carry no CFI in stripped binaries, and their
// frame pointers are of no help in frameless leaves; the pclntab's pcsp
// table gives the exact stack-pointer delta at every pc instead (Go's own
// traceback, runtime/traceback.go).
//
//   higher addresses
//   | caller's frame       |
//   +----------------------+ <- CFA = rsp + pcsp(pc) + 8
//   | return address       |    at CFA-8
//   | caller's rbp         |    at CFA-16, once the prologue stored it
//   | locals, outgoing args|
//   +----------------------+ <- rsp
//   lower addresses
//
// Answers depend on (binary, pc) alone, so they are rules the walker caches:
// the bottom for runtime.goexit / mstart / rt0_go (and TopFrame functions
// but the signal trampoline); the end of the walk (WalkEnd::kStackSwitch)
// for functions that switch stacks (SPWrite: systemstack, mcall,
// asmcgocall, morestack, ...), unless the sampled pc is before their first
// write to rsp; else a fast CFA-from-rsp rule. Pcs outside
// the binary's Go functions are not mine (cgo's C code steps by its CFI).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "binary/cfi_rule.h"
#include "binary/go_pclntab.h"
#include "binary/x86_decoder.h"
#include "unwind/frame_stepper.h"

namespace swprof {

class GoStepper : public FrameStepper {
 public:
  StepperKind kind() const override { return StepperKind::kGo; }
  StepAnswer step(const StepInput& in, Registers& caller) override;

 private:
  // The rule for a frame at `vaddr` in function `f`, or how the walk ends
  // there; nullopt when pcsp gives no usable delta.
  std::optional<StepAnswer> answer_at(const ElfBinary& binary, const GoPclntab& table, const GoPclntab::Func& f,
                                      FrameAddress at, uint64_t vaddr);
  // Whether every instruction of f before `vaddr` moves rsp only as pcsp
  // says: the innermost frame of a stack-switching function has not
  // switched yet (Go's traceback trusts pcsp there too).
  bool before_stack_write(const ElfBinary& binary, const GoPclntab::Func& f, uint64_t vaddr);
  // The first address at which f's prologue has stored the caller's rbp at
  // CFA-16 (`push rbp`, or Go <= 1.20's `mov [rsp+k], rbp`); nullopt when
  // its first instructions do not.
  std::optional<uint64_t> bp_saved_from(const ElfBinary& binary, const GoPclntab& table, const GoPclntab::Func& f);
  // A CfiRule row the walker's fast rules point at; owned here, so valid
  // as long as this stepper (and the walker's cache, which lives with it).
  const CfiRule& row(int32_t cfa_offset, bool restores_bp);

  std::map<std::pair<const ElfBinary*, uint64_t>, std::optional<uint64_t>> saved_from_;  // by (binary, entry)
  std::map<std::pair<int32_t, bool>, std::unique_ptr<CfiRule>> rows_;
  std::optional<X86Decoder> decoder_;
};

}  // namespace swprof
