#include "binary/cfi_rule.h"

#include <catch2/catch.hpp>

using namespace swprof;

TEST_CASE("CfiRule is a compact value and describes itself as formulas", "[cfi]") {
  STATIC_REQUIRE(sizeof(CfiRule) == 32);
  CfiRule rule;
  rule.cfa = CfaRule::kRbpOffset;
  rule.cfa_reg = kRbp;
  rule.cfa_offset = 16;
  rule.saved[kSlotRa] = SavedRule::kAtCfa;
  rule.saved_offset[kSlotRa] = -8;
  rule.saved[kSlotRbp] = SavedRule::kAtCfa;
  rule.saved_offset[kSlotRbp] = -16;
  rule.saved[kSlotR13] = SavedRule::kUndefined;
  CHECK(describe(rule) == "cfa=rbp+16 ra=[cfa-8] rbp=[cfa-16] r13=undef");
  CfiRule other = rule;
  CHECK(other == rule);
  other.saved_offset[kSlotRbp] = -24;
  CHECK_FALSE(other == rule);
}
