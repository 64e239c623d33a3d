#pragma once
// A stepper's answer together with the caller's registers, as one value,
// for tests that look at both.

#include <functional>

#include "unwind/frame_stepper.h"

namespace swprof::testing {

struct Stepped {
  StepKind kind = StepKind::kNotMine;
  WalkEnd failure = WalkEnd::kNoUnwindInfo;  // kFailed only
  uint8_t caller_flags = 0;
  AnswerCache cache = AnswerCache::kUncacheable;
  UnwindRule rule;
  Registers caller;  // kCaller only
};

inline Stepped stepped(const StepAnswer& a, const Registers& caller) {
  return {a.kind, a.failure, a.caller_flags, a.cache, a.rule, a.kind == StepKind::kCaller ? caller : Registers{}};
}

inline Stepped step(FrameStepper& stepper, const StepInput& in) {
  Registers caller;
  const StepAnswer a = stepper.step(in, caller);
  return stepped(a, caller);
}

// An Applied (a rule's or a stepper's own formula) with the caller's registers.
inline Stepped stepped(const Applied& a, const Registers& caller) { return stepped(StepAnswer::of(a), caller); }

// Answers to script: the caller `regs`, the bottom, not mine, a failure.
inline Stepped caller_is(const Registers& regs, uint8_t flags = 0) {
  return stepped(StepAnswer::caller(flags), regs);
}
inline Stepped bottom_here() { return stepped(StepAnswer::bottom(), Registers{}); }
inline Stepped not_mine_here() { return stepped(StepAnswer::not_mine(), Registers{}); }
inline Stepped failed_with(WalkEnd why) { return stepped(StepAnswer::failed(why), Registers{}); }

// A stepper whose answer is a function of the input, for driving the walker.
class ScriptedStepper : public FrameStepper {
 public:
  ScriptedStepper(StepperKind kind, std::function<Stepped(const StepInput&)> fn) : kind_(kind), fn_(std::move(fn)) {}
  StepperKind kind() const override { return kind_; }
  StepAnswer step(const StepInput& in, Registers& caller) override {
    const Stepped s = fn_(in);
    if (s.kind == StepKind::kCaller) caller = s.caller;
    return {s.kind, s.failure, s.caller_flags, s.cache, s.rule};
  }

 private:
  StepperKind kind_;
  std::function<Stepped(const StepInput&)> fn_;
};

}  // namespace swprof::testing
