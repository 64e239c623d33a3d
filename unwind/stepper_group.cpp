#include "unwind/stepper_group.h"

#include <algorithm>

namespace swprof {

void StepperGroup::add(std::unique_ptr<FrameStepper> stepper, int priority) {
  auto at = std::upper_bound(steppers_.begin(), steppers_.end(), priority,
                             [](int p, const Entry& e) { return p < e.priority; });
  steppers_.insert(at, Entry{priority, std::move(stepper)});
}

GroupOutcome StepperGroup::step(const StepInput& in) const {
  GroupOutcome result;
  result.outcome = StepOutcome::fail(WalkEnd::kNoUnwindInfo);
  bool have_error = false;
  for (const Entry& e : steppers_) {
    StepOutcome out = e.stepper->step(in);
    if (out.status == StepStatus::kSuccess || out.status == StepStatus::kStackBottom) return {out, e.stepper->kind()};
    // Keep the first specific error (the best-informed stepper's reason).
    if (out.status == StepStatus::kError && !have_error) {
      result = {out, e.stepper->kind()};
      have_error = true;
    }
  }
  return result;
}

}  // namespace swprof
