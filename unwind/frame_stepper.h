#pragma once
// The stepper interface, after Dyninst StackwalkerAPI's FrameStepper: given
// the current frame, produce the caller's registers, or say the stack ends
// here, or that this stepper does not handle this frame. A stepper whose
// answer depends only on the frame's binary, pc and exactness says so, with
// its rule: the walker caches it (RuleCache) and applies it to later such
// frames without asking.

#include <cstdint>

#include "unwind/address_space.h"
#include "unwind/frame.h"
#include "unwind/frame_address.h"
#include "unwind/memory.h"
#include "unwind/registers.h"
#include "unwind/unwind_rule.h"

namespace swprof {

struct StepInput {
  const Registers& regs;    // the current frame's known registers
  const Memory& stack;      // the copied stack (reads outside fail)
  const Mapping* mapping;   // the mapping holding address.lookup_pc(), or nullptr
  const ProcessMaps& maps;  // the whole address space (for the wanderer)
  FrameAddress address;     // regs.pc(), exact or a return address
  int depth;                // 0 for the sampled frame

  uint64_t lookup_pc() const { return address.lookup_pc(); }
};

// What the walker may cache of an answer, for every frame at the same
// (binary, pc, exactness).
enum class AnswerCache : uint8_t {
  kUncacheable,  // the answer depends on registers or stack contents
  kNotMineByPc,  // (kNotMine) every such frame is not this stepper's
  kRule,         // every such frame steps by `rule` (kCaller, kBottom, or kFailed by the same rule)
};

// A stepper's answer; the caller's registers are written separately.
struct StepAnswer {
  StepKind kind = StepKind::kNotMine;
  WalkEnd failure = WalkEnd::kNoUnwindInfo;  // kFailed only: why
  uint8_t caller_flags = 0;                  // kCaller only: FrameFlags of the caller frame
  AnswerCache cache = AnswerCache::kUncacheable;
  UnwindRule rule;  // AnswerCache::kRule only

  static constexpr StepAnswer not_mine() { return {}; }
  static constexpr StepAnswer not_mine_by_pc() {
    return {StepKind::kNotMine, WalkEnd::kNoUnwindInfo, 0, AnswerCache::kNotMineByPc, {}};
  }
  static constexpr StepAnswer bottom() { return {StepKind::kBottom, WalkEnd::kNoUnwindInfo, 0, {}, {}}; }
  // The bottom for every frame at this (binary, pc, exactness).
  static constexpr StepAnswer bottom_by_pc() {
    return {StepKind::kBottom, WalkEnd::kNoUnwindInfo, 0, AnswerCache::kRule, UnwindRule::bottom()};
  }
  // The walk ends here for every frame at this (binary, pc, exactness), not
  // at its bottom: `why` (WalkEnd::kStackSwitch).
  static constexpr StepAnswer end_by_pc(WalkEnd why) {
    return {StepKind::kEnd, why, 0, AnswerCache::kRule, UnwindRule::end(why)};
  }
  static constexpr StepAnswer failed(WalkEnd why) { return {StepKind::kFailed, why, 0, {}, {}}; }
  static constexpr StepAnswer caller(uint8_t flags = 0) { return {StepKind::kCaller, WalkEnd::kNoUnwindInfo, flags, {}, {}}; }
  // A rule applied: its result, cacheable as `rule`.
  static constexpr StepAnswer by_rule(const Applied& a, const UnwindRule& rule) {
    return {a.kind, a.failure, a.caller_flags, AnswerCache::kRule, rule};
  }
  static constexpr StepAnswer of(const Applied& a) { return {a.kind, a.failure, a.caller_flags, {}, {}}; }
};

class FrameStepper {
 public:
  virtual ~FrameStepper() = default;
  virtual StepperKind kind() const = 0;
  // After Dyninst's getCallerFrame(in, out): on kCaller the caller's
  // registers are in `caller`, a frame the walker owns (nothing is copied).
  virtual StepAnswer step(const StepInput& in, Registers& caller) = 0;
};

}  // namespace swprof
