#include "unwind/stepper_group.h"

#include <algorithm>

namespace swprof {

void StepperGroup::add(std::unique_ptr<FrameStepper> stepper, int priority) {
  auto at = std::upper_bound(steppers_.begin(), steppers_.end(), priority,
                             [](int p, const Entry& e) { return p < e.priority; });
  steppers_.insert(at, Entry{priority, std::move(stepper)});
}

GroupResult StepperGroup::step_into(const StepInput& in, Registers& caller) const {
  GroupResult first_error{StepResult::fail(WalkEnd::kNoUnwindInfo), StepperKind::kSample};
  bool have_error = false;
  for (const Entry& e : steppers_) {
    const StepResult r = e.stepper->step_into(in, caller);
    if (r.status == StepStatus::kSuccess || r.status == StepStatus::kStackBottom) return {r, e.stepper->kind()};
    // Keep the first specific error (the best-informed stepper's reason).
    if (r.status == StepStatus::kError && !have_error) {
      first_error = {r, e.stepper->kind()};
      have_error = true;
    }
  }
  return first_error;
}

GroupOutcome StepperGroup::step(const StepInput& in) const {
  Registers caller;
  const GroupResult r = step_into(in, caller);
  return {StepOutcome::of(r.result, caller), r.by};
}

}  // namespace swprof
