#include "unwind/beyond_check.h"

#include <algorithm>
#include <cstring>

#include "binary/function_bounds.h"
#include "unwind/wanderer_stepper.h"

namespace swprof {

bool CopyEndReread::same_at(uint64_t addr) const {
  if (addr >= copy_end || (copy_end - addr) % 8 != 0) return false;
  const uint64_t word = (copy_end - addr) / 8 - 1;  // bit 0: the copy's last word
  if (word / 8 >= changed.size()) return false;
  return !(changed[word / 8] & (1u << (word % 8)));
}

bool CopyEndReread::same_from(uint64_t addr) const {
  for (uint64_t at = addr; at < copy_end; at += 8)
    if (!same_at(at)) return false;
  return true;
}

bool frames_past(const WalkResult& walk, uint64_t copy_end) {
  for (size_t i = 1; i < walk.frames.size(); ++i)
    if (walk.frames[i].sp > copy_end) return true;
  return false;
}

bool may_call(const ProcessMaps& maps, const Frame& caller, const Frame& callee) {
  const Mapping* at = maps.find(caller.pc - 1);
  const Mapping* in = maps.find(callee.lookup_pc());
  if (!at || !in || !at->binary || !in->binary || caller.pc < 5) return false;
  uint8_t call[5];  // e8 rel32
  if (at->binary->read_code(at->to_vaddr(caller.pc - 5), call, sizeof call) && call[0] == 0xe8) {
    int32_t rel;
    std::memcpy(&rel, call + 1, sizeof rel);
    const uint64_t target = caller.pc + static_cast<uint64_t>(static_cast<int64_t>(rel));
    const std::optional<uint64_t> start = function_start(*in->binary, in->to_vaddr(callee.lookup_pc()));
    if (start && maps.find(target) == in && in->to_vaddr(target) == *start) return true;
  }
  return WandererStepper::follows_indirect_call(*at, caller.pc);
}

namespace {

// The outermost return addresses in the copy read the same (see the header).
bool outermost_returns_hold(const WalkResult& walk, size_t outer, const CopyEndReread& reread) {
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

}  // namespace

bool frames_past_copy_hold(const WalkResult& walk, const CopyEndReread& reread, const ProcessMaps& maps) {
  // frames[i]'s return address is at frames[i].sp - 8 (signal frames'
  // registers come from a ucontext instead). The last frame whose sp is in
  // the copy holds the outermost one there; the next is past the copy.
  size_t outer = 0, past = 0;
  for (size_t i = 1; i < walk.frames.size(); ++i) {
    if (walk.frames[i].sp > reread.copy_end) {
      past = i;
      break;
    }
    if (!(walk.frames[i].flags & kFrameSignal)) outer = i;
  }
  if (past == 0) return true;
  if (outer != 0 && outermost_returns_hold(walk, outer, reread)) return true;
  // The outermost frame's part of the copy's last kQuietTailBytes: above the
  // return address into it (its callee's, which changes as it works).
  if (reread.delay_us > kPromptReadUs || reread.copy_end < kQuietTailBytes) return false;
  uint64_t quiet = reread.copy_end - kQuietTailBytes;
  if (outer != 0) quiet = std::max(quiet, walk.frames[outer].sp);
  return reread.same_from(quiet) && may_call(maps, walk.frames[past], walk.frames[past - 1]);
}

}  // namespace swprof
