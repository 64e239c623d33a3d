#include "unwind/rule_cache.h"

namespace swprof {

void RuleCache::insert(uint64_t space, FrameAddress at, const UnwindRule& rule) {
  if (evicted_ >= 2 * sets_.size() && 64 - shift_ < kMaxSetBits) grow();
  Set& set = sets_[set_of(at.address(), shift_)];
  const uint64_t tag = tag_of(space, at);
  if (set.way[0].address != at.address() || set.way[0].tag != tag) {
    evicted_ += set.way[1].tag != 0;
    set.way[1] = set.way[0];
  }
  set.way[0] = Entry{at.address(), tag, rule};
  ++inserts_;
}

// Twice the sets, every entry kept: the two ways of set s go to sets 2s and
// 2s + 1 (one more bit of the same hash), the older first, so that where
// both land in one set the newer is still way 0.
void RuleCache::grow() {
  std::vector<Set> bigger(2 * sets_.size());
  const unsigned shift = shift_ - 1;
  for (const Set& set : sets_)
    for (int w = 1; w >= 0; --w) {
      const Entry& e = set.way[w];
      if (e.tag == 0) continue;
      Set& to = bigger[set_of(e.address, shift)];
      to.way[1] = to.way[0];
      to.way[0] = e;
    }
  sets_.swap(bigger);
  shift_ = shift;
  evicted_ = 0;
}

void RuleCache::clear() {
  for (Set& set : sets_) set = Set{};
  inserts_ = 0;
  evicted_ = 0;
}

}  // namespace swprof
