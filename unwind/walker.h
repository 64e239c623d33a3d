#pragma once
// Drives the stepper chain from the sampled registers to the outermost
// frame. The walker alone owns the guards: maximum depth, progress (pc or sp
// must change, sp must not go down except into a signal's interrupted
// context), caller pcs must be in executable mappings, and it says why every
// walk ended.
//
// Remembered frames. Once the group has stepped a frame at some (process
// maps, pc, exactness) and remembers how such frames go (they are the
// bottom, or the caller follows from a simple CFI rule: see
// StepperGroup::remembered), the walker keeps that in a small cache of its
// own and steps later such frames itself: with the CFA based on rsp or
// rbp and the return address just below it, only rip, rsp and rbp matter,
// so only they are tracked. The other callee-saved registers are rebuilt,
// by applying the same rules again from the last frame whose registers are
// all known, only when a stepper must be asked about a frame (a frame not
// remembered, or a rule that does not apply). A remembered frame is stepped
// exactly as the group would step it: the walks are the same with and
// without (`WalkerOptions::remembered_frames`; tests compare).

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

#include "unwind/stepper_group.h"

namespace swprof {

struct WalkerOptions {
  size_t max_depth = 256;
  bool remembered_frames = true;  // off: every frame goes through the group
};

class Walker {
 public:
  Walker(StepperGroup group, WalkerOptions options = {})
      : group_(std::move(group)),
        options_(options),
        frames_(std::max<size_t>(options.max_depth, 1)),
        rules_(std::max<size_t>(options.max_depth, 1)),
        known_(size_t{1} << kKnownSetBits) {}

  // Not const: the steppers, the group and the walker keep caches.
  WalkResult walk(const Registers& regs, const Memory& stack, const ProcessMaps& maps) {
    WalkResult result;
    walk(regs, stack, maps, result);
    return result;
  }
  // The same into `out`, reusing the storage of its frames.
  void walk(const Registers& regs, const Memory& stack, const ProcessMaps& maps, WalkResult& out);

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

  // A remembered frame: frames at `pc` (with this exactness, in the maps
  // of `tag`) are the bottom, or step to CFA = (rbp if kKnownCfaFromBp,
  // else rsp) + cfa_offset, return address at CFA - 8, rbp at CFA +
  // bp_offset if kKnownRestoresBp (else unchanged), by `rule`. Only made
  // for pcs in executable mappings, so a caller pc that finds its entry
  // needs no mapping check.
  struct Known {
    uint64_t pc = 0;
    uint64_t tag = 0;               // maps.id() * 2 + exactness; 0: empty
    const CfiRule* rule = nullptr;  // the group's rule (nullptr for the bottom)
    int32_t cfa_offset = 0;
    int16_t bp_offset = 0;
    uint8_t flags = 0;
    StepperKind by = StepperKind::kSample;
  };
  static_assert(sizeof(Known) == 32);
  enum : uint8_t { kKnownBottom = 1, kKnownCfaFromBp = 2, kKnownRestoresBp = 4 };
  // Two ways per set, one cache line: two hot pcs that hash alike (the
  // sampled pc and its caller's return address, say) do not evict each
  // other on every walk. The newest entry is way 0.
  struct alignas(64) KnownSet {
    std::array<Known, 2> way;
  };
  static constexpr unsigned kKnownSetBits = 9;
  static size_t known_set(uint64_t pc) { return (pc * 0x9e3779b97f4a7c15ull) >> (64 - kKnownSetBits); }

  // Copies what the group remembers of the frame at (pc, exact) into the
  // walker's cache, when it has the shape the walker steps.
  void remember(const Mapping& mapping, uint64_t pc, bool exact, uint64_t tag);

  StepperGroup group_;
  WalkerOptions options_;
  // The current walk's frames, copied out once at its end; max_depth long,
  // so writing a frame needs no check.
  std::vector<Frame> frames_;
  // rules_[i]: the rule that stepped frame i (a remembered frame) to i + 1.
  std::vector<const CfiRule*> rules_;
  std::vector<KnownSet> known_;  // set by known_set(pc)
  std::array<Registers, 3> regs_;  // a walk's frames whose every register is needed
};

}  // namespace swprof
