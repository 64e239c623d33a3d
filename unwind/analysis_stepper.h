#pragma once
// Binary-analysis stepper for code without unwind info: the stack-height
// analysis (stack_height_analysis.h) of the function holding the pc (named,
// or discovered in stripped code: binary/function_bounds.h) gives the CFA;
// the return address sits just below it:
//
//        |  caller's frame      |
//        +----------------------+  <- CFA = caller's rsp
//        |  return address      |     CFA - 8
//        +----------------------+
//        |  ... (caller's rbp at CFA + rbp_slot when it was pushed)
//        +----------------------+  <- rsp
//
// (rip, rsp, rbp) = (*(CFA - 8), CFA, rbp or *(CFA + rbp_slot)), where
// CFA = rbp + offset when the function keeps an rbp frame (as compilers' own
// CFI does), else rsp + offset.

#include "unwind/frame_stepper.h"
#include "unwind/stack_height_analysis.h"

namespace swprof {

class AnalysisStepper final : public FrameStepper {
 public:
  explicit AnalysisStepper(size_t max_cached_pcs = 8192) : analysis_(max_cached_pcs) {}

  StepperKind kind() const override { return StepperKind::kAnalysis; }
  // Uncacheable: the CFA and return address are checked on every frame.
  StepAnswer step(const StepInput& in, Registers& caller) override;

  // Applies a stack height to the current frame into `caller`. Unknown
  // heights fail with kNoUnwindInfo, as do a CFA without room for a return
  // address above sp and a return address outside every executable mapping
  // (the walker's guards, walk_guards.h); reads outside the copied stack
  // fail with kStackExhausted. The next stepper then gets its chance.
  static Applied apply(const StackHeight& height, const StepInput& in, Registers& caller);

 private:
  StackHeightAnalysis analysis_;
};

}  // namespace swprof
