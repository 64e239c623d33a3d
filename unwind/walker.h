#pragma once
// Drives the stepper chain from the sampled registers to the outermost
// frame, after framehop's unwinder: for each frame, look its rule up in the
// one RuleCache by (address space, frame address); on a hit apply it; on a
// miss ask the steppers in order, cache the rule of the answer when it has
// one, and go on from the answer. The walker alone owns the guards
// (walk_guards.h): maximum depth, progress (pc or sp must change, sp must
// not go down except into a signal's interrupted context), caller pcs must
// be in executable mappings; and it says why every walk ended.
//
// Frames stepped by a fast rule (UnwindRule) track only rip, rsp and rbp.
// The other callee-saved registers are rebuilt, by applying the same rules'
// CFI rows again from the last frame whose registers are all known, only
// when a stepper must be asked. The walks are the same with the cache and
// without it (`WalkerOptions::rule_cache`; tests compare).

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

#include "unwind/rule_cache.h"
#include "unwind/stepper_list.h"

namespace swprof {

struct WalkerOptions {
  size_t max_depth = kDefaultMaxDepth;
  bool rule_cache = true;  // off: every frame asks the steppers
};

class Walker {
 public:
  Walker(StepperList steppers, WalkerOptions options = {})
      : steppers_(std::move(steppers)),
        options_(options),
        frames_(std::max<size_t>(options.max_depth, 1)),
        rows_(std::max<size_t>(options.max_depth, 1)) {}

  // Not const: the steppers and the walker keep caches.
  WalkResult walk(const Registers& regs, const Memory& stack, const ProcessMaps& maps) {
    WalkResult result;
    walk(regs, stack, maps, result);
    return result;
  }
  // The same into `out`, reusing the storage of its frames.
  void walk(const Registers& regs, const Memory& stack, const ProcessMaps& maps, WalkResult& out);

  const RuleCache& rule_cache() const { return cache_; }
  // Frames for which the steppers were asked (a frame without a cached
  // rule, or whose rule did not apply), over all walks.
  uint64_t stepper_asks() const { return stepper_asks_; }

 private:
  // The mappings a walk has found most recently: a stack's frames come from
  // a few binaries, so most lookups end here instead of in a binary search.
  // Valid for one walk only (another walk may bring other maps).
  class RecentMappings {
   public:
    explicit RecentMappings(const ProcessMaps& maps) : maps_(maps) {}
    // `hint` (the callee's mapping) is tried first.
    const Mapping* find(uint64_t addr, const Mapping* hint = nullptr) {
      if (hint && addr - hint->start < hint->end - hint->start) return hint;
      for (const Mapping* m : recent_)
        if (m && addr - m->start < m->end - m->start) return m;
      const Mapping* m = maps_.find(addr);
      if (m) recent_[next_++ % recent_.size()] = m;
      return m;
    }

   private:
    const ProcessMaps& maps_;
    std::array<const Mapping*, 4> recent_{};
    unsigned next_ = 0;
  };

  struct Walk;    // one walk's state (walker.cpp)
  struct Cursor;  // its current frame
  enum class Flow : uint8_t;

  WalkEnd run(Walk& w);
  Flow start(Walk& w, Cursor& c);
  Flow step_cached(Walk& w, Cursor& c, const UnwindRule& rule);
  Flow step_asking(Walk& w, Cursor& c);
  StepperList::Asked ask(Walk& w, const Cursor& c, const StepInput& in, Registers& caller);
  Flow enter_caller(Walk& w, Cursor& c, const FrameCore& caller, FrameAddress at, const UnwindRule* rule, StepperKind by,
                    uint8_t flags);
  const Registers& full_registers(const Walk& w) const;
  Registers& spare_registers(const Walk& w, const Registers& regs) const;
  const UnwindRule* lookup(const Walk& w, FrameAddress at) const;

  StepperList steppers_;
  WalkerOptions options_;
  RuleCache cache_;
  // The current walk's frames, copied out once at its end; max_depth long,
  // so writing a frame needs no check.
  std::vector<Frame> frames_;
  // rows_[i]: the CFI row of the fast rule that stepped frame i to i + 1.
  std::vector<const CfiRule*> rows_;
  mutable std::array<Registers, 3> regs_;  // a walk's frames whose every register is needed
  uint64_t stepper_asks_ = 0;
};

}  // namespace swprof
