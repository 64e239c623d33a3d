#pragma once
// The steppers in the order they are asked (DESIGN.md, "The stepper
// chain"): the first to answer caller or bottom decides the frame; not_mine
// falls through to the next; a failure is remembered and the next stepper
// gets its chance, except a failure to read past the copied stack
// (kStackExhausted), which decides: the walk ends there, never guessed on
// from the stale words of the last copied frame.

#include <memory>
#include <optional>
#include <vector>

#include "unwind/frame_stepper.h"

namespace swprof {

class StepperList {
 public:
  // Asked after every stepper added before it. At most 256.
  void add(std::unique_ptr<FrameStepper> stepper);
  size_t size() const { return steppers_.size(); }
  StepperKind kind(size_t at) const { return kinds_[at]; }

  struct Asked {
    StepAnswer answer;                      // the deciding answer, or the first failure
    StepperKind by = StepperKind::kSample;  // the stepper that gave `answer`
    // What every frame at the same (binary, pc, exactness) may skip: when
    // the steppers before the first that did not answer not_mine decided by
    // the address alone, that stepper's rule, or ask_from() it.
    std::optional<UnwindRule> rule;
  };
  // Asks the steppers from position `first` on; the caller's registers go
  // into `caller`.
  Asked ask(const StepInput& in, Registers& caller, size_t first = 0);

 private:
  std::vector<std::unique_ptr<FrameStepper>> steppers_;
  std::vector<StepperKind> kinds_;
};

}  // namespace swprof
