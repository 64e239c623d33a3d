#include "unwind/registers.h"

#include <catch2/catch.hpp>

#include "support/record_fixtures.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("a sample's registers are all known, in perf order", "[registers]") {
  auto s = make_sample(7, 1000, 0x7ffc0000f000, {});
  Registers r = Registers::from_sample(s.view);
  CHECK(r.has(kRip));
  CHECK(r.has(kRsp));
  CHECK(r.has(kRbp));
  CHECK(r.has(kR15));
  CHECK(r.sp() == 0x7ffc0000f000);
  CHECK(r.pc() == s.view.regs[8]);
  CHECK(r.bp() == s.view.regs[6]);
}

TEST_CASE("a sample read without stopping its thread knows only ip and sp", "[registers]") {
  auto s = make_sample(7, 1000, 0x7ffc0000f000, {});
  s.view.ip_sp_only = true;
  Registers r = Registers::from_sample(s.view);
  CHECK(r.valid_mask() == ((1u << kRip) | (1u << kRsp)));
  CHECK(r.sp() == 0x7ffc0000f000);
  CHECK(r.pc() == s.view.regs[8]);
}

TEST_CASE("a sample without user registers gives none", "[registers]") {
  SampleView s;
  CHECK(Registers::from_sample(s).valid_mask() == 0);
}
