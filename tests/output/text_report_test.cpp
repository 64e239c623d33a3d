#include "output/text_report.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "support/profile_fixture.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("text: header, top table and a pruned tree") {
  Profile p = sample_profile();
  std::ostringstream out;
  TextReportOptions o;
  o.min_percent = 6;
  write_text_report(p, o, out);
  const std::string s = out.str();
  CHECK(s.find("command:   ./app --fast") != std::string::npos);
  CHECK(s.find("100 in 0.10 s, 0 lost, 1 thread") != std::string::npos);
  CHECK(s.find("   85.00    85.00        85  b  [app]") != std::string::npos);
  CHECK(s.find("  70.00%   10.00%      a  [app]") != std::string::npos);
  CHECK(s.find("rec") == s.find("rec  [app]"));  // rec is 5 %: only in the top table
  CHECK(s.find("  rec  [app]", s.find("Calling-context tree")) == std::string::npos);
}
