#include "support/self_snapshot.h"

#include <catch2/catch.hpp>

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("a self snapshot holds the registers, stack and maps of this process", "[self_snapshot]") {
  SelfSnapshot s = capture_self();
  CHECK(s.regs.has(kRip));
  CHECK(s.regs.has(kRsp));
  CHECK(s.stack.size() > 256);
  const Mapping* m = s.maps->find(s.regs.pc());
  REQUIRE(m);
  REQUIRE(m->binary);
  CHECK(function_name_at(s.regs.pc(), true, *s.maps).find("capture_self") != std::string::npos);
  CHECK(s.maps->find(reinterpret_cast<uint64_t>(&capture_self)) != nullptr);
  // The copied stack reads back and stops at its end.
  auto mem = s.memory();
  CHECK(mem.read_u64(s.regs.sp()).has_value());
  CHECK_FALSE(mem.read_u64(s.regs.sp() + s.stack.size() - 4).has_value());
  CHECK_FALSE(mem.read_u64(s.regs.sp() - 8).has_value());
}
