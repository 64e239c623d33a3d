#include "compare/diff_text.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "support/diff_fixtures.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

std::string text_of(const ProfileDiff& d, size_t top) {
  DiffReportOptions o;
  o.top = top;
  std::ostringstream out;
  write_diff_text(d, o, out);
  return out.str();
}

}  // namespace

TEST_CASE("diff text: both sides, the verdict naming the failing functions, rows cut at --top") {
  const std::string s = text_of(diff_profiles(bench(300, "base.json"), bench(600, "new.json"), {}), 1);
  CHECK(s.rfind("swprof diff: base.json -> new.json\n"
                "  base:  ./bench (1000 samples, 0.00 s)\n"
                "  new:   ./bench (1300 samples, 0.00 s)\n"
                "  gate:  a function fails when its total share rose by more than 5% (relative) with z >= 4, "
                "and it has >= 1% of samples and >= 20 samples on either side\n",
                0) == 0);
  CHECK_THAT(s, Catch::Contains("\nResult: REGRESSION: 2 functions fail the gate: hot, compute\n"));
  // hot's self share rose as much as its total, but only total is gated.
  CHECK_THAT(s, Catch::Contains("\n    self     30.00    46.15   +16.15    1.54  "));
  CHECK_THAT(s, Catch::Contains("  hot  [app]\n  ... and 2 more\n\nImprovements:\n"));
  CHECK_THAT(s, Catch::Contains("  parse  [app]\n  ... and 1 more\n"));
  CHECK_THAT(s, Catch::Contains("Calling contexts whose total share changed"));
}

TEST_CASE("diff text: the same profile twice has no rows") {
  const std::string s = text_of(diff_profiles(bench(300), bench(300), {}), 10);
  CHECK_THAT(s, Catch::Contains("\nResult: no significant regression (0 functions improved)\n"));
  CHECK_THAT(s, Catch::Contains("* fails the gate):\n  (none)\n\nImprovements:\n  (none)\n"));
  CHECK_THAT(s, Catch::EndsWith("decodes an id):\n  (none)\n"));
}

TEST_CASE("diff text: the gate's numbers are written as given, never with an exponent") {
  DiffOptions options;
  options.threshold_percent = 1e6;
  options.min_share_percent = 0.00001;
  options.min_z = 100;
  const std::string s = text_of(diff_profiles(bench(300), bench(300), options), 10);
  CHECK_THAT(s, Catch::Contains("rose by more than 1000000% (relative) with z >= 100, and it has >= 0.00001% of "
                                "samples"));
}
