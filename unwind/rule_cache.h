#pragma once
// The one cache of unwind rules: (address space, frame address) -> the rule
// every frame there steps by. Keyed by ProcessMaps::id() (never reused,
// changed by every mapping change: entries of old maps are never hit, so
// nothing is invalidated) and the runtime address with its exactness.
//
// Two ways per set, one cache line: two hot addresses that hash alike (a
// sampled pc and its caller's return address, say) do not evict each other
// on every walk. The newest entry is way 0. The Walker owns one; it inserts
// only rules of addresses in executable mappings of the key's maps, so a
// hit also says the address is code.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "unwind/frame_address.h"
#include "unwind/unwind_rule.h"

namespace swprof {

class RuleCache {
 public:
  static constexpr unsigned kSetBits = 9;

  RuleCache() : sets_(size_t{1} << kSetBits) {}

  // The rule cached for `at` in address space `space`, or nullptr. Valid
  // until the next insert().
  [[gnu::always_inline]] const UnwindRule* find(uint64_t space, FrameAddress at) const {
    const Set& set = sets_[set_of(at.address())];
    const uint64_t tag = tag_of(space, at);
    for (const Entry& e : set.way)
      if (e.address == at.address() && e.tag == tag) return &e.rule;
    return nullptr;
  }
  void insert(uint64_t space, FrameAddress at, const UnwindRule& rule);
  void clear();

  // Rules inserted since construction or clear().
  uint64_t inserts() const { return inserts_; }

 private:
  struct Entry {
    uint64_t address = 0;
    uint64_t tag = 0;  // space * 2 + exactness; 0: empty (ids are never 0)
    UnwindRule rule;
  };
  static_assert(sizeof(Entry) == 32);
  struct alignas(64) Set {
    std::array<Entry, 2> way;
  };

  static size_t set_of(uint64_t address) { return (address * 0x9e3779b97f4a7c15ull) >> (64 - kSetBits); }
  static uint64_t tag_of(uint64_t space, FrameAddress at) { return space * 2 + at.is_exact(); }

  std::vector<Set> sets_;
  uint64_t inserts_ = 0;
};

}  // namespace swprof
