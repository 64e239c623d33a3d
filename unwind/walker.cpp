#include "unwind/walker.h"

namespace swprof {
WalkResult Walker::walk(const Registers& sampled, const Memory& stack, const ProcessMaps& maps) {
  WalkResult result;
  if (!sampled.has(kRip) || !sampled.has(kRsp)) {
    result.end = WalkEnd::kNoRegisters;
    return result;
  }
  // Two register frames, swapped each step: the current one and its caller.
  Registers frames[2] = {sampled, Registers()};
  Registers* regs = &frames[0];
  Registers* caller = &frames[1];
  result.frames.reserve(32);
  result.frames.push_back({regs->pc(), regs->sp(), StepperKind::kSample, kFrameExactPc});
  bool exact = true;
  const Mapping* mapping = maps.find(regs->pc());
  for (;;) {
    if (result.frames.size() >= options_.max_depth) {
      result.end = WalkEnd::kMaxDepth;
      return result;
    }
    const StepInput in{*regs, stack, mapping, maps, exact, static_cast<int>(result.frames.size() - 1)};
    const GroupResult step = group_.step_into(in, *caller);
    if (step.result.status == StepStatus::kStackBottom) {
      result.end = WalkEnd::kBottom;
      return result;
    }
    if (step.result.status != StepStatus::kSuccess) {
      result.end = step.result.error;
      return result;
    }
    if (!caller->has(kRip) || !caller->has(kRsp) || caller->pc() == 0) {
      result.end = WalkEnd::kBottom;  // a zero return address ends every ABI-conforming stack
      return result;
    }
    const bool signal = step.result.caller_flags & kFrameSignal;
    const bool moved = caller->sp() != regs->sp() || caller->pc() != regs->pc();
    if (!moved || (!signal && caller->sp() <= regs->sp())) {
      result.end = WalkEnd::kNoProgress;
      return result;
    }
    // The caller's code, looked up once: checked here, used by the next step.
    mapping = maps.find(signal ? caller->pc() : caller->pc() - 1);
    if (!mapping || !mapping->executable) {
      // A return address outside code means the step went wrong: drop it.
      result.end = WalkEnd::kUnmappedPc;
      return result;
    }
    exact = signal;
    result.frames.push_back({caller->pc(), caller->sp(), step.by,
                             static_cast<uint8_t>(step.result.caller_flags | (signal ? kFrameExactPc : 0))});
    std::swap(regs, caller);
  }
}

}  // namespace swprof
