#pragma once
// Steppers in priority order (Dyninst's StepperGroup): the first to answer
// success or stack_bottom decides the frame; not_me falls through to the
// next; an error is remembered and the next stepper gets its chance.

#include <memory>
#include <vector>

#include "unwind/frame_stepper.h"

namespace swprof {

struct GroupOutcome {
  StepOutcome outcome;
  StepperKind by = StepperKind::kSample;  // the stepper that answered
};

struct GroupResult {
  StepResult result;
  StepperKind by = StepperKind::kSample;  // the stepper that answered
};

class StepperGroup {
 public:
  // Lower priority runs first; equal priorities keep insertion order.
  void add(std::unique_ptr<FrameStepper> stepper, int priority);
  // Writes the caller's registers into `caller` (on success).
  GroupResult step_into(const StepInput& in, Registers& caller) const;
  GroupOutcome step(const StepInput& in) const;
  bool empty() const { return steppers_.empty(); }

 private:
  struct Entry {
    int priority;
    std::unique_ptr<FrameStepper> stepper;
  };
  std::vector<Entry> steppers_;
};

}  // namespace swprof
