#include "unwind/walker.h"

namespace swprof {

namespace {
constexpr uint64_t kPrefetchBytes = 1024;
}  // namespace

WalkResult Walker::walk(const Registers& sampled, const Memory& stack, const ProcessMaps& maps) {
  WalkResult result;
  if (!sampled.has(kRip) || !sampled.has(kRsp)) {
    result.end = WalkEnd::kNoRegisters;
    return result;
  }
  Frame* const frames = frames_.data();
  size_t count = 0;
  auto finish = [&](WalkEnd end) {
    result.frames.assign(frames, frames + count);
    result.end = end;
    return std::move(result);
  };
  // Two register frames, swapped each step: the current one and its caller.
  Registers registers[2] = {sampled, Registers()};
  Registers* regs = &registers[0];
  Registers* caller = &registers[1];
  frames[count++] = {regs->pc(), regs->sp(), StepperKind::kSample, kFrameExactPc};
  bool exact = true;
  RecentMappings mappings(maps);
  const std::optional<WordView> words = stack_words(stack);
  // Most walks read their first frames from the copy's first KiB: fetch it
  // at once, so that when it is not in cache the reads overlap instead of
  // waiting one after another (every frame's address depends on the last).
  if (words) {
    const uint64_t end = std::min<uint64_t>(words->last + 8, kPrefetchBytes);
    for (uint64_t off = 0; off < end; off += 64) __builtin_prefetch(words->data + off);
  }
  const Mapping* mapping = mappings.find(regs->pc());
  for (;;) {
    if (count >= options_.max_depth) return finish(WalkEnd::kMaxDepth);
    const GroupResult step = group_.step_frame(*regs, stack, words ? &*words : nullptr, mapping, maps, exact,
                                                  static_cast<int>(count - 1), *caller);
    if (step.result.status == StepStatus::kStackBottom) return finish(WalkEnd::kBottom);
    if (step.result.status != StepStatus::kSuccess) return finish(step.result.error);
    if (!caller->has(kRip) || !caller->has(kRsp) || caller->pc() == 0)
      return finish(WalkEnd::kBottom);  // a zero return address ends every ABI-conforming stack
    const bool signal = step.result.caller_flags & kFrameSignal;
    const bool moved = caller->sp() != regs->sp() || caller->pc() != regs->pc();
    if (!moved || (!signal && caller->sp() <= regs->sp())) return finish(WalkEnd::kNoProgress);
    // The caller's code, looked up once: checked here, used by the next step.
    mapping = mappings.find(signal ? caller->pc() : caller->pc() - 1, mapping);
    // A return address outside code means the step went wrong: drop it.
    if (!mapping || !mapping->executable) return finish(WalkEnd::kUnmappedPc);
    exact = signal;
    frames[count++] = {caller->pc(), caller->sp(), step.by,
                       static_cast<uint8_t>(step.result.caller_flags | (signal ? kFrameExactPc : 0))};
    std::swap(regs, caller);
  }
}

}  // namespace swprof
