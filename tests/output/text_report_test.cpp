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

TEST_CASE("text: the tree's threshold is written as given, never with an exponent") {
  for (const auto& [min_percent, shown] : {std::pair{100.0, "100"}, {12.5, "12.5"}, {0.001, "0.001"}}) {
    std::ostringstream out;
    TextReportOptions o;
    o.min_percent = min_percent;
    write_text_report(sample_profile(), o, out);
    CHECK_THAT(out.str(), Catch::Contains("(total%, self%; nodes under " + std::string(shown) + "% of samples hidden)"));
  }
}

TEST_CASE("text: off-CPU and wall profiles say what is weighed, and measure shares and columns in time") {
  std::ostringstream wall;
  write_text_report(wall_profile(), TextReportOptions{}, wall);
  const std::string s = wall.str();
  INFO(s);
  CHECK(s.find("  weight:    wall time 24.000 ms (on-CPU 16.7 %, off-CPU 83.3 %)\n") != std::string::npos);
  CHECK(s.find("Top functions by self time:") != std::string::npos);
  // schedule: 18 of 24 ms as the leaf (nap 15, wait_pipe 3), 20 ms on the stack.
  CHECK(s.find("   75.00    83.33    18.000 ms  schedule  [kernel]\n") != std::string::npos);
  CHECK(s.find("   16.67    16.67     4.000 ms  work  [app]\n") != std::string::npos);
  CHECK(s.find("    8.33     8.33     2.000 ms  [preempted]  [kernel]\n") != std::string::npos);
  CHECK(s.find("  62.50%    0.00%      nap  [app]\n") != std::string::npos);  // by time, not by samples (2 of 8)

  std::ostringstream off;
  write_text_report(wall_profile(WeightKind::kOffCpu), TextReportOptions{}, off);
  CHECK(off.str().find("  weight:    off-CPU time (20.000 ms, blocked or waiting)\n") != std::string::npos);
  CHECK(off.str().find("   90.00   100.00    18.000 ms  schedule  [kernel]\n") != std::string::npos);
}

TEST_CASE("text: cpu profiles have no weight line and count samples, as before") {
  std::ostringstream out;
  write_text_report(sample_profile(), TextReportOptions{}, out);
  CHECK(out.str().find("weight:") == std::string::npos);
  CHECK(out.str().find("Top functions by self samples:") != std::string::npos);
}
