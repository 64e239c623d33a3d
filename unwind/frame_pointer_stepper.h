#pragma once
// Frame-pointer stepper: code built with `push rbp; mov rbp, rsp`. The frame
// state helper (frame_state.h) tells, for an exact pc (frame 0, or the
// interrupted pc of a signal), how far the frame is built, so the first frame
// is right even in a prologue or an epilogue. A return address always lies
// mid-body, where the frame is set.
//
// The stack of a function whose frame is set (addresses grow upwards):
//
//        |  caller's frame      |
//        +----------------------+  <- rbp + 16  = caller's rsp (the CFA)
//        |  return address      |     rbp + 8
//        +----------------------+
//        |  caller's rbp        |  <- rbp
//        +----------------------+
//        |  locals, saved regs  |
//        +----------------------+  <- rsp

#include <optional>

#include "unwind/frame_state.h"
#include "unwind/frame_stepper.h"

namespace swprof {

// How to find the caller, given the frame state at the pc.
enum class FramePointerRule : uint8_t {
  // The frame is set (the diagram above):
  //
  // (rip, rsp, rbp) = (*(rbp + 8), rbp + 16, *rbp).
  kSet,
  // `push rbp` done, `mov rbp, rsp` not yet:
  //
  //        | return address |  rsp + 8
  //        | caller's rbp   |  <- rsp
  //
  // (rip, rsp, rbp) = (*(rsp + 8), rsp + 16, *rsp).
  kHalfset,
  // At the entry (before `push rbp`), or after the epilogue restored rbp:
  //
  //        | return address |  <- rsp
  //
  // (rip, rsp, rbp) = (*rsp, rsp + 8, rbp).
  kUnset,
};

const char* frame_pointer_rule_name(FramePointerRule rule);

class FramePointerStepper final : public FrameStepper {
 public:
  explicit FramePointerStepper(size_t max_cached_functions = 4096) : states_(max_cached_functions) {}

  StepperKind kind() const override { return StepperKind::kFramePointer; }
  // Uncacheable: the rbp chain is checked on every frame.
  StepAnswer step(const StepInput& in, Registers& caller) override;

  // The rule for the current frame; nullopt when this stepper does not
  // handle it (no rbp frame, or no trustworthy rbp chain).
  std::optional<FramePointerRule> find_rule(const StepInput& in);

  // Applies `rule` to the current frame into `caller`, validating the
  // result with the walker's guards (walk_guards.h): the caller's sp is above
  // ours, the return address is in an executable mapping; and the rbp used
  // is at or above sp (so rbp values stay ordered along the chain). Bad
  // frame pointers fail with kBadFramePointer, reads outside the copied
  // stack with kStackExhausted: the next stepper then gets its chance.
  static Applied apply(FramePointerRule rule, const StepInput& in, Registers& caller);

 private:
  // In no known function (no symbol, no discovered start, no binary): the rbp
  // chain, when rbp points into the copied stack above sp.
  static std::optional<FramePointerRule> plain_chain(const StepInput& in);
  std::optional<FramePointerRule> rule_from_state(const StepInput& in, const FunctionFrameLayout& layout, uint64_t vaddr);

  FrameStateHelper states_;
};

}  // namespace swprof
