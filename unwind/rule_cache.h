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
//
// It starts with 2^kSetBits sets (32 KiB, as many addresses as a program
// of a few libraries samples) and doubles, up to 2^kMaxSetBits sets (2 MiB),
// each time it has evicted as many entries as it holds: a program whose
// sampled addresses outnumber the entries (a compiler's, tens of
// thousands) would otherwise miss on most frames of every walk.

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
  static constexpr unsigned kMaxSetBits = 15;

  RuleCache() : sets_(size_t{1} << kSetBits) {}

  // The rule cached for `at` in address space `space`, or nullptr. Valid
  // until the next insert().
  [[gnu::always_inline]] const UnwindRule* find(uint64_t space, FrameAddress at) const {
    const Set& set = sets_[set_of(at.address(), shift_)];
    const uint64_t tag = tag_of(space, at);
    for (const Entry& e : set.way)
      if (e.address == at.address() && e.tag == tag) return &e.rule;
    return nullptr;
  }
  void insert(uint64_t space, FrameAddress at, const UnwindRule& rule);
  // Forgets every rule (the sets stay as many as they have grown to).
  void clear();

  // Rules inserted since construction or clear().
  uint64_t inserts() const { return inserts_; }
  // The sets it has now (a power of two).
  size_t sets() const { return sets_.size(); }

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

  // The top bits of a multiplicative hash: a set's entries split between
  // sets 2s and 2s + 1 when the sets double.
  static size_t set_of(uint64_t address, unsigned shift) { return (address * 0x9e3779b97f4a7c15ull) >> shift; }
  static uint64_t tag_of(uint64_t space, FrameAddress at) { return space * 2 + at.is_exact(); }
  void grow();

  std::vector<Set> sets_;
  unsigned shift_ = 64 - kSetBits;  // 64 - log2(sets_.size())
  uint64_t evicted_ = 0;            // entries evicted since the sets last grew
  uint64_t inserts_ = 0;
};

}  // namespace swprof
