#include "output/text_report.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "output/text_width.h"
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

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A recursion 60 calls deep through long C++ names, hot at every level.
Profile deep_cpp_profile() {
  Profile p = sample_profile();
  p.tree = CallTree();
  std::vector<CctFrame> stack;
  for (int level = 0; level < 60; ++level) {
    stack.push_back(fn("engine::detail::Visitor<std::vector<std::pair<int, std::string>>, Policy<" +
                           std::to_string(level) + ">>::visit_level_" + std::to_string(level) +
                           "(Node<std::map<int, long>> const&, Context&)",
                       "libengine_with_a_long_name.so"));
    add_stack(p.tree, stack, 2);
  }
  p.tree.sort_children();
  return p;
}

}  // namespace

TEST_CASE("text: at 80 columns every line fits, every name keeps its own end, deep levels show their depth") {
  TextReportOptions o;
  o.min_percent = 0;
  o.width = 80;
  const std::string s = [&] {
    std::ostringstream out;
    write_text_report(deep_cpp_profile(), o, out);
    return out.str();
  }();
  INFO(s);
  const auto lines = lines_of(s);
  size_t tree_lines = 0;
  for (const std::string& line : lines) {
    CHECK(display_width(line) <= 80);
    const size_t at = line.find("visit_level_");
    if (at == std::string::npos || line.find('%') == std::string::npos) continue;
    // Numbers first on every line of the tree: no name on a line of its own.
    CHECK(line.find_first_not_of(' ') == line.find_first_of("0123456789"));
    CHECK(line.find("(\u2026)") != std::string::npos);  // its own name and "(…)" at the end
    ++tree_lines;
  }
  CHECK(tree_lines == 60);
  for (int level : {0, 10, 59})
    CHECK(s.find("::visit_level_" + std::to_string(level) + "(\u2026)") != std::string::npos);
  // At 80 columns 10 levels are indented; the 60th is 50 below them.
  CHECK(s.find("%  " + std::string(20, ' ') + "[+50] ") != std::string::npos);
  CHECK(s.find("[+51]") == std::string::npos);
}

TEST_CASE("text: with no width names stay whole, indentation stops at 16 levels") {
  TextReportOptions o;
  o.min_percent = 0;
  std::ostringstream out;
  write_text_report(deep_cpp_profile(), o, out);
  const std::string s = out.str();
  CHECK(s.find("engine::detail::Visitor<std::vector<std::pair<int, std::string>>, Policy<59>>::visit_level_59(Node<"
               "std::map<int, long>> const&, Context&)  [libengine_with_a_long_name.so]\n") != std::string::npos);
  CHECK(s.find(std::string(2 * kIndentLevels, ' ') + "[+44] engine") != std::string::npos);
  CHECK(s.find("%  " + std::string(2 * kIndentLevels + 2, ' ') + "engine") == std::string::npos);
}

TEST_CASE("text: --tree-depth folds deeper calls into one line under their ancestor") {
  TextReportOptions o;
  o.min_percent = 0;
  o.tree_depth = 3;
  std::ostringstream out;
  write_text_report(deep_cpp_profile(), o, out);
  const std::string s = out.str();
  INFO(s);
  CHECK(s.find("visit_level_2(") != std::string::npos);
  CHECK(s.find("visit_level_3(", s.find("Calling-context tree")) == std::string::npos);
  // 120 samples, 2 a level: 114 are below level 3, in 57 more levels.
  CHECK(s.find("  95.00%" + std::string(11 + 8, ' ') + "\u2026 57 more levels\n") != std::string::npos);

  o.tree_depth = 1;
  std::ostringstream small;
  write_text_report(sample_profile(), o, small);
  CHECK(small.str().find(" 100.00%    0.00%    main  [app]\n 100.00%" + std::string(11 + 4, ' ') +
                         "\u2026 3 more levels\n") != std::string::npos);
}

TEST_CASE("text: a run of direct recursion is one row, with its number of calls") {
  // main -> f x 4 -> leaf : 10;  main -> f x 2 -> g : 4
  Profile p = sample_profile();
  p.tree = CallTree();
  add_stack(p.tree, {fn("main"), fn("f"), fn("f"), fn("f"), fn("f"), fn("leaf")}, 10);
  add_stack(p.tree, {fn("main"), fn("f"), fn("f"), fn("g")}, 4);
  p.tree.sort_children();
  TextReportOptions o;
  o.min_percent = 0;
  std::ostringstream out;
  write_text_report(p, o, out);
  const std::string s = out.str();
  INFO(s);
  // The first two calls of f have one callee each, the second f: one row.
  // Below it the other two, then leaf; g under the first run.
  CHECK(s.find(" 100.00%    0.00%    main  [app]\n"
               " 100.00%    0.00%      f  [app] (\u00d72)\n"
               "  71.43%    0.00%        f  [app] (\u00d72)\n"
               "  71.43%   71.43%          leaf  [app]\n"
               "  28.57%   28.57%        g  [app]\n") != std::string::npos);
}

namespace {

// A merge sort whose comparator is inlined into the merge step and also
// called out of line through a function pointer, as qsort does:
// main -> msort -> msort -> merge -> compare (inlined) : 30
// main -> msort -> msort -> merge -> compare           : 20
// main -> msort -> msort -> merge                      : 10
// main -> msort -> compare                             : 20 (out of line)
// main -> msort -> compare (inlined)                   : 20
Profile sort_profile() {
  Profile p = sample_profile();
  p.tree = CallTree();
  const CctFrame inl = fn("compare", "app", kCctInline);
  add_stack(p.tree, {fn("main"), fn("msort"), fn("msort"), fn("merge"), inl}, 30);
  add_stack(p.tree, {fn("main"), fn("msort"), fn("msort"), fn("merge"), fn("compare")}, 20);
  add_stack(p.tree, {fn("main"), fn("msort"), fn("msort"), fn("merge")}, 10);
  add_stack(p.tree, {fn("main"), fn("msort"), fn("compare")}, 20);
  add_stack(p.tree, {fn("main"), fn("msort"), inl}, 20);
  p.tree.sort_children();
  return p;
}

std::string top_table(const Profile& p, InlineRows rows) {
  TextReportOptions o;
  o.inlined = rows;
  std::ostringstream out;
  write_text_report(p, o, out);
  const std::string s = out.str();
  return s.substr(s.find("Top functions"), s.find("Calling-context tree") - s.find("Top functions"));
}

}  // namespace

TEST_CASE("text: a function inlined in some places and called in others is one row of the top table") {
  const std::string merged = top_table(sort_profile(), InlineRows::kMerge);
  INFO(merged);
  CHECK(merged.find("   90.00    90.00        90  compare  [app] (inlined 56%)\n") != std::string::npos);
  CHECK(merged.find("   10.00    60.00        10  merge  [app]\n") != std::string::npos);
  CHECK(merged.find("(inlined)") == std::string::npos);

  // Inlined code counted for the function it was inlined into: merge's 30
  // and msort's 20.
  const std::string caller = top_table(sort_profile(), InlineRows::kCaller);
  INFO(caller);
  CHECK(caller.find("   40.00    40.00        40  compare  [app]\n") != std::string::npos);
  CHECK(caller.find("   40.00    60.00        40  merge  [app]\n") != std::string::npos);
  CHECK(caller.find("   20.00   100.00        20  msort  [app]\n") != std::string::npos);

  const std::string separate = top_table(sort_profile(), InlineRows::kSeparate);
  CHECK(separate.find("   50.00    50.00        50  compare  [app] (inlined)\n") != std::string::npos);
  CHECK(separate.find("   40.00    40.00        40  compare  [app]\n") != std::string::npos);

  // The tree keeps inline frames as nodes of their own.
  std::ostringstream out;
  write_text_report(sort_profile(), TextReportOptions{}, out);
  CHECK(out.str().find("  20.00%   20.00%        compare  [app] (inlined)\n") != std::string::npos);
}

TEST_CASE("text: a name that holds its module already loses the module column first when space is short") {
  Profile p = sample_profile();
  p.tree = CallTree();
  add_stack(p.tree, {fn("main", "xz"), fn("[unknown] liblzma.so.5.4.1+0x15ae0", "liblzma.so.5.4.1")}, 10);
  TextReportOptions o;
  o.width = 80;
  std::ostringstream out;
  write_text_report(p, o, out);
  INFO(out.str());
  CHECK(out.str().find("  [unknown] liblzma.so.5.4.1+0x15ae0\n") != std::string::npos);
  o.width = 0;
  std::ostringstream whole;
  write_text_report(p, o, whole);
  CHECK(whole.str().find("  [unknown] liblzma.so.5.4.1+0x15ae0  [liblzma.so.5.4.1]\n") != std::string::npos);
}
