#pragma once
// Drives the stepper chain from the sampled registers to the outermost
// frame. The walker alone owns the guards: maximum depth, progress (pc or sp
// must change, sp must not go down except into a signal's interrupted
// context), caller pcs must be in executable mappings, and it says why every
// walk ended.

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

#include "unwind/stepper_group.h"

namespace swprof {

struct WalkerOptions {
  size_t max_depth = 256;
};

class Walker {
 public:
  Walker(StepperGroup group, WalkerOptions options = {})
      : group_(std::move(group)), options_(options), frames_(std::max<size_t>(options.max_depth, 1)) {}

  // Not const: the steppers and the group keep per-walker caches.
  WalkResult walk(const Registers& regs, const Memory& stack, const ProcessMaps& maps);

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

  StepperGroup group_;
  WalkerOptions options_;
  // The current walk's frames, copied out once at its end (one allocation of
  // the exact size); max_depth long, so writing a frame needs no check.
  std::vector<Frame> frames_;
};

}  // namespace swprof
