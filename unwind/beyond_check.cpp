#include "unwind/beyond_check.h"

namespace swprof {

bool CopyEndReread::same_at(uint64_t addr) const {
  if (addr >= copy_end || (copy_end - addr) % 8 != 0) return false;
  const uint64_t word = (copy_end - addr) / 8 - 1;  // bit 0: the copy's last word
  if (word / 8 >= changed.size()) return false;
  return !(changed[word / 8] & (1u << (word % 8)));
}

bool frames_past(const WalkResult& walk, uint64_t copy_end) {
  for (size_t i = 1; i < walk.frames.size(); ++i)
    if (walk.frames[i].sp > copy_end) return true;
  return false;
}

bool frames_past_copy_hold(const WalkResult& walk, const CopyEndReread& reread) {
  // frames[i]'s return address is at frames[i].sp - 8 (signal frames'
  // registers come from a ucontext instead). The last frame whose sp is in
  // the copy holds the outermost one there; later frames are past the copy.
  size_t outer = 0;
  bool past = false;
  for (size_t i = 1; i < walk.frames.size(); ++i) {
    if (walk.frames[i].sp > reread.copy_end) {
      past = true;
      break;
    }
    if (!(walk.frames[i].flags & kFrameSignal)) outer = i;
  }
  if (!past) return true;
  if (outer == 0) return false;
  const uint64_t outermost = walk.frames[outer].sp - 8;
  int checked = 0;
  for (size_t i = outer; i > 0 && checked < kCheckedReturns; --i) {
    if (walk.frames[i].flags & kFrameSignal) continue;
    const uint64_t slot = walk.frames[i].sp - 8;
    if (outermost - slot >= kCheckedSpan) break;
    if (!reread.same_at(slot)) return false;
    ++checked;
  }
  return true;
}

}  // namespace swprof
