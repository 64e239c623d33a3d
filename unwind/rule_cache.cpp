#include "unwind/rule_cache.h"

namespace swprof {

void RuleCache::insert(uint64_t space, FrameAddress at, const UnwindRule& rule) {
  Set& set = sets_[set_of(at.address())];
  const uint64_t tag = tag_of(space, at);
  if (set.way[0].address != at.address() || set.way[0].tag != tag) set.way[1] = set.way[0];
  set.way[0] = Entry{at.address(), tag, rule};
  ++inserts_;
}

void RuleCache::clear() {
  for (Set& set : sets_) set = Set{};
  inserts_ = 0;
}

}  // namespace swprof
