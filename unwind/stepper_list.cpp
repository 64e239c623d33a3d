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
// from the stepper at `at`.
UnwindRule rule_of(const StepAnswer& answer, size_t at) {
  UnwindRule rule = answer.cache == AnswerCache::kRule ? answer.rule : UnwindRule::ask_from(0);
  rule.stepper = static_cast<uint8_t>(at);
  return rule;
}

}  // namespace

StepperList::Asked StepperList::ask(const StepInput& in, Registers& caller, size_t first) {
  Asked first_failure{StepAnswer::failed(WalkEnd::kNoUnwindInfo), 0, std::nullopt};
  bool have_failure = false;
  bool by_pc = true;  // every stepper so far passed the frame on by its address alone
  std::optional<UnwindRule> rule;
  for (size_t i = first; i < steppers_.size(); ++i) {
    const StepAnswer answer = steppers_[i]->step(in, caller);
    if (answer.kind == StepKind::kNotMine) {
      by_pc = by_pc && answer.cache == AnswerCache::kNotMineByPc;
      continue;
    }
    if (by_pc && !rule) rule = rule_of(answer, i);
    if (answer.kind != StepKind::kFailed) return {answer, static_cast<uint8_t>(i), rule};
    // Keep the first failure (the best-informed stepper's reason).
    if (!have_failure) {
      first_failure = {answer, static_cast<uint8_t>(i), std::nullopt};
      have_failure = true;
    }
    by_pc = false;
  }
  first_failure.rule = rule;
  return first_failure;
}

}  // namespace swprof
