#include "unwind/rule_cache.h"

#include <catch2/catch.hpp>

using namespace swprof;

namespace {

UnwindRule sp_rule(int32_t offset) {
  UnwindRule rule;
  rule.kind = RuleKind::kCfaSp;
  rule.cfa_offset = offset;
  return rule;
}

}  // namespace

TEST_CASE("rule cache: a rule is found by address space, address and exactness", "[rule_cache]") {
  RuleCache cache;
  const uint64_t space = 7;
  CHECK(cache.find(space, FrameAddress::return_address(0x401000)) == nullptr);
  cache.insert(space, FrameAddress::return_address(0x401000), sp_rule(16));
  const UnwindRule* found = cache.find(space, FrameAddress::return_address(0x401000));
  REQUIRE(found);
  CHECK(*found == sp_rule(16));
  CHECK(cache.inserts() == 1);
  // The same address as an exact pc, in other maps, or another address: not cached.
  CHECK(cache.find(space, FrameAddress::exact_pc(0x401000)) == nullptr);
  CHECK(cache.find(space + 1, FrameAddress::return_address(0x401000)) == nullptr);
  CHECK(cache.find(space, FrameAddress::return_address(0x401001)) == nullptr);
  // Both exactnesses at once.
  cache.insert(space, FrameAddress::exact_pc(0x401000), UnwindRule::bottom());
  REQUIRE(cache.find(space, FrameAddress::exact_pc(0x401000)));
  CHECK(cache.find(space, FrameAddress::exact_pc(0x401000))->kind == RuleKind::kBottom);
  REQUIRE(cache.find(space, FrameAddress::return_address(0x401000)));
  CHECK(*cache.find(space, FrameAddress::return_address(0x401000)) == sp_rule(16));
}

TEST_CASE("rule cache: inserting an address again replaces its rule", "[rule_cache]") {
  RuleCache cache;
  cache.insert(1, FrameAddress::return_address(0x5000), sp_rule(8));
  cache.insert(1, FrameAddress::return_address(0x5000), sp_rule(24));
  REQUIRE(cache.find(1, FrameAddress::return_address(0x5000)));
  CHECK(cache.find(1, FrameAddress::return_address(0x5000))->cfa_offset == 24);
}

TEST_CASE("rule cache: two ways per set keep two addresses that hash alike, a third evicts the oldest",
          "[rule_cache]") {
  RuleCache cache;
  // Addresses in one set: the set is the top bits of address * constant.
  std::vector<uint64_t> same_set;
  const auto set_of = [](uint64_t a) { return (a * 0x9e3779b97f4a7c15ull) >> (64 - RuleCache::kSetBits); };
  for (uint64_t a = 0x400000; same_set.size() < 3; ++a)
    if (set_of(a) == set_of(0x400000)) same_set.push_back(a);
  cache.insert(1, FrameAddress::return_address(same_set[0]), sp_rule(8));
  cache.insert(1, FrameAddress::return_address(same_set[1]), sp_rule(16));
  CHECK(cache.find(1, FrameAddress::return_address(same_set[0])));
  CHECK(cache.find(1, FrameAddress::return_address(same_set[1])));
  cache.insert(1, FrameAddress::return_address(same_set[2]), sp_rule(24));
  CHECK_FALSE(cache.find(1, FrameAddress::return_address(same_set[0])));
  CHECK(cache.find(1, FrameAddress::return_address(same_set[1])));
  CHECK(cache.find(1, FrameAddress::return_address(same_set[2])));
}

TEST_CASE("rule cache: clear forgets every rule", "[rule_cache]") {
  RuleCache cache;
  cache.insert(3, FrameAddress::exact_pc(0x1234), sp_rule(8));
  cache.clear();
  CHECK_FALSE(cache.find(3, FrameAddress::exact_pc(0x1234)));
  CHECK(cache.inserts() == 0);
}

TEST_CASE("rule cache: more addresses than entries make it grow, and growing keeps every rule", "[rule_cache]") {
  RuleCache cache;
  const size_t initial = cache.sets();
  CHECK(initial == size_t{1} << RuleCache::kSetBits);
  const auto set_of = [&](uint64_t a) { return (a * 0x9e3779b97f4a7c15ull) >> (64 - RuleCache::kSetBits); };
  // A rule in a set no other address below goes to: nothing evicts it
  // before the sets double, and the doubling must keep it.
  const uint64_t kept = 0x400000;
  cache.insert(1, FrameAddress::return_address(kept), sp_rule(40));
  uint64_t a = 0x500000;
  while (cache.sets() == initial) {
    if (set_of(a) != set_of(kept)) cache.insert(1, FrameAddress::return_address(a), sp_rule(8));
    a += 4;
  }
  CHECK(cache.sets() == 2 * initial);
  REQUIRE(cache.find(1, FrameAddress::return_address(kept)));
  CHECK(cache.find(1, FrameAddress::return_address(kept))->cfa_offset == 40);

  // A compiler's working set: 20,000 return addresses, each walked again
  // and again. Nearly all of them stay cached (with 1,024 entries, at most
  // 5 % would).
  RuleCache big;
  constexpr uint64_t kAddresses = 20000;
  for (int round = 0; round < 3; ++round)
    for (uint64_t i = 0; i < kAddresses; ++i) big.insert(2, FrameAddress::return_address(0x10000000 + 13 * i), sp_rule(16));
  uint64_t found = 0;
  for (uint64_t i = 0; i < kAddresses; ++i) found += big.find(2, FrameAddress::return_address(0x10000000 + 13 * i)) != nullptr;
  CHECK(found >= kAddresses * 9 / 10);
  CHECK(big.sets() <= size_t{1} << RuleCache::kMaxSetBits);
}
