#include "unwind/stepper_list.h"

#include <cassert>
#include <cstdint>

namespace swprof {

void StepperList::add(std::unique_ptr<FrameStepper> stepper) {
  assert(steppers_.size() < 256);
  kinds_.push_back(stepper->kind());
  steppers_.push_back(std::move(stepper));
}

namespace {

// The rule to cache for a frame whose first answer other than not_mine came
// from the stepper at `at`, of kind `by`.
UnwindRule rule_of(const StepAnswer& answer, size_t at, StepperKind by) {
  if (answer.cache != AnswerCache::kRule) return UnwindRule::ask_from(static_cast<uint8_t>(at));
  UnwindRule rule = answer.rule;
  rule.by = by;
  return rule;
}

}  // namespace

StepperList::Asked StepperList::ask(const StepInput& in, Registers& caller, size_t first) {
  Asked first_failure{StepAnswer::failed(WalkEnd::kNoUnwindInfo), StepperKind::kSample, std::nullopt};
  bool have_failure = false;
  bool by_pc = true;  // every stepper so far passed the frame on by its address alone
  std::optional<UnwindRule> rule;
  for (size_t i = first; i < steppers_.size(); ++i) {
    const StepAnswer answer = steppers_[i]->step(in, caller);
    if (answer.kind == StepKind::kNotMine) {
      by_pc = by_pc && answer.cache == AnswerCache::kNotMineByPc;
      continue;
    }
    if (by_pc && !rule) rule = rule_of(answer, i, kinds_[i]);
    if (answer.kind != StepKind::kFailed) return {answer, kinds_[i], rule};
    // A rule that knows where the caller's registers are but finds them past
    // the copied stack ends the walk: the steppers after it could only guess
    // from the words the copy holds, which are this frame's, not its caller's.
    if (answer.failure == WalkEnd::kStackExhausted) return {answer, kinds_[i], rule};
    // Keep the first failure (the best-informed stepper's reason).
    if (!have_failure) {
      first_failure = {answer, kinds_[i], std::nullopt};
      have_failure = true;
    }
    by_pc = false;
  }
  first_failure.rule = rule;
  return first_failure;
}

}  // namespace swprof
