#include "unwind/stepper_group.h"

#include <algorithm>
#include <cstdint>

namespace swprof {

void StepperGroup::add(std::unique_ptr<FrameStepper> stepper, int priority) {
  auto at = std::upper_bound(steppers_.begin(), steppers_.end(), priority,
                             [](int p, const Entry& e) { return p < e.priority; });
  steppers_.insert(at, Entry{priority, std::move(stepper)});
  claims_ = {};  // claims index steppers_
}

// Asks the steppers from `first` on; `record`, when given, is the claim slot
// to fill for this frame.
GroupResult StepperGroup::ask(const StepInput& in, Registers& caller, size_t first, Claim* record) {
  GroupResult first_error{StepResult::fail(WalkEnd::kNoUnwindInfo), StepperKind::kSample};
  bool have_error = false;
  bool skippable = true;  // every stepper so far decides by pc alone
  for (size_t i = first; i < steppers_.size(); ++i) {
    FrameStepper& stepper = *steppers_[i].stepper;
    const StepResult r = stepper.step_into(in, caller);
    if (r.status == StepStatus::kNotMe) {
      skippable = skippable && stepper.claims_by_pc_only();
      continue;
    }
    if (record && skippable) {
      const bool by_pc = stepper.claims_by_pc_only();
      *record = {in.mapping->binary.get(),
                 in.mapping->to_vaddr(in.regs.pc()),
                 in.exact_pc,
                 static_cast<uint8_t>(i),
                 stepper.kind(),
                 rule_shortcut_ && by_pc && r.status == StepStatus::kStackBottom,
                 rule_shortcut_ && by_pc ? stepper.simple_rule(in) : nullptr};
    }
    if (r.status == StepStatus::kSuccess || r.status == StepStatus::kStackBottom) return {r, stepper.kind()};
    // Keep the first specific error (the best-informed stepper's reason).
    if (!have_error) {
      first_error = {r, stepper.kind()};
      have_error = true;
    }
    skippable = false;
  }
  return first_error;
}

GroupOutcome StepperGroup::step(const StepInput& in) {
  Registers caller;
  const GroupResult r = step_into(in, caller);
  return {StepOutcome::of(r.result, caller), r.by};
}

}  // namespace swprof
