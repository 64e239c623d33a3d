// diff_profiles: matching by function and context id, normalization, the
// significance test and the gate, on profiles with known counts.

#include <catch2/catch.hpp>
#include <cmath>

#include "common/error.h"
#include "compare/diff.h"
#include "support/diff_fixtures.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

const FunctionDiff& function(const ProfileDiff& d, const std::string& name) {
  for (const auto& f : d.functions)
    if (f.function == name) return f;
  FAIL("no function " << name);
  throw 0;
}

std::vector<std::string> names_where(const ProfileDiff& d, bool (*pred)(const FunctionDiff&)) {
  std::vector<std::string> out;
  for (const auto& f : d.functions)
    if (pred(f)) out.push_back(f.function);
  std::sort(out.begin(), out.end());
  return out;
}

bool self_regressed(const FunctionDiff& f) { return f.self.change == Change::kRegression; }
bool total_regressed(const FunctionDiff& f) { return f.total.change == Change::kRegression; }
bool improved(const FunctionDiff& f) {
  return f.self.change == Change::kImprovement || f.total.change == Change::kImprovement;
}
bool fails(const FunctionDiff& f) { return f.fails_gate; }

}  // namespace

TEST_CASE("two-proportion z: the textbook value, and 0 where it is undefined") {
  // 140/200 against 255/340: pooled p = 395/540, z = 1.266 (textbook example).
  CHECK(two_proportion_z(140, 200, 255, 340) == Approx(1.266015).epsilon(1e-5));
  CHECK(two_proportion_z(255, 340, 140, 200) == Approx(-1.266015).epsilon(1e-5));
  CHECK(two_proportion_z(50, 100, 50, 100) == 0);
  CHECK(two_proportion_z(0, 0, 5, 10) == 0);
  CHECK(two_proportion_z(100, 100, 10, 10) == 0);  // p = 1: no variance
  CHECK(two_proportion_z(0, 100, 0, 10) == 0);
}

TEST_CASE("diff: the doubled function regresses by self, its caller by total, the rest improve") {
  const ProfileDiff d = diff_profiles(bench(300, "base.json"), bench(600, "new.json"), {});
  CHECK(d.base.samples == 1000);
  CHECK(d.current.samples == 1300);
  const FunctionDiff& hot = function(d, "hot");
  CHECK(hot.self.base == 300);
  CHECK(hot.self.current == 600);
  CHECK(hot.self.base_percent == Approx(30));
  CHECK(hot.self.new_percent == Approx(600.0 / 13));
  CHECK(hot.self.delta_points == Approx(600.0 / 13 - 30));
  CHECK(hot.self.ratio == Approx(600.0 / 13 / 30));
  CHECK(hot.self.z == Approx(two_proportion_z(300, 1000, 600, 1300)));
  CHECK(hot.self.z > 4);

  CHECK(names_where(d, self_regressed) == std::vector<std::string>{"hot"});
  CHECK(names_where(d, total_regressed) == std::vector<std::string>{"compute", "hot"});
  CHECK(names_where(d, fails) == std::vector<std::string>{"compute", "hot"});  // --fail-on total
  // Their shares fell: parse's significantly (40% -> 30.8%, z = -4.6); steady's
  // and write's not at z >= 4 (-1.9 and -2.9).
  CHECK(names_where(d, improved) == std::vector<std::string>{"parse"});
  CHECK(function(d, "main").total.change == Change::kNone);  // 100% on both sides
  CHECK(d.regressed());
  CHECK(d.failing() == 2);
  // Largest rise of total share first.
  CHECK(d.functions.front().function == "hot");
  CHECK(d.functions[1].function == "compute");

  DiffOptions self_only;
  self_only.fail_on = FailOn::kSelf;
  CHECK(names_where(diff_profiles(bench(300), bench(600), self_only), fails) == std::vector<std::string>{"hot"});
  DiffOptions both;
  both.fail_on = FailOn::kBoth;
  CHECK(names_where(diff_profiles(bench(300), bench(600), both), fails) ==
        std::vector<std::string>{"compute", "hot"});
}

TEST_CASE("diff: the same shares at another scale are no change, improvements never fail") {
  const ProfileDiff same = diff_profiles(bench(300), profile_of({{{fn("main"), fn("parse")}, 800},
                                                                  {{fn("main"), fn("compute"), fn("hot")}, 600},
                                                                  {{fn("main"), fn("compute"), fn("steady")}, 200},
                                                                  {{fn("main"), fn("write")}, 400}}),
                                         {});
  for (const auto& f : same.functions) {
    INFO(f.function);
    CHECK(f.total.delta_points == Approx(0).margin(1e-9));
    CHECK(f.total.change == Change::kNone);
  }
  CHECK_FALSE(same.regressed());

  // hot got faster: it and its caller improved, which fails nothing. Shares
  // are relative, so parse's rose (30.8% -> 40%) and that is a regression
  // of its share.
  const ProfileDiff faster = diff_profiles(bench(600), bench(300), {});
  CHECK(names_where(faster, improved) == std::vector<std::string>{"compute", "hot"});
  CHECK(names_where(faster, fails) == std::vector<std::string>{"parse"});
  for (const auto& f : faster.functions)
    if (f.fails_gate) CHECK(f.total.delta_points > 0);
}

TEST_CASE("diff: small counts are not significant, whatever their relative change") {
  // x 1.5 on 10 samples of 1000.
  const Profile base = profile_of({{{fn("main"), fn("big")}, 990}, {{fn("main"), fn("small")}, 10}});
  const Profile next = profile_of({{{fn("main"), fn("big")}, 985}, {{fn("main"), fn("small")}, 15}});
  DiffOptions loose;
  loose.min_share_percent = 0;
  loose.min_samples = 0;
  const ProfileDiff d = diff_profiles(base, next, loose);
  const FunctionDiff& small = function(d, "small");
  CHECK(small.self.ratio == Approx(1.5));
  CHECK(small.self.eligible);
  CHECK_FALSE(small.self.significant);
  CHECK(small.self.change == Change::kNone);
  CHECK_FALSE(d.regressed());
}

TEST_CASE("diff: threshold, min-share, min-samples, min-z and --only decide what is judged") {
  // rare: 0.5% -> 1.5% of 10000 (significant, x3); tiny_count: 0 -> 20 samples (0.2%).
  const Profile base = profile_of({{{fn("main"), fn("work")}, 9950}, {{fn("main"), fn("rare")}, 50}});
  const Profile next = profile_of({{{fn("main"), fn("work")}, 9830}, {{fn("main"), fn("rare")}, 150},
                                   {{fn("main"), fn("tiny_count")}, 20}});
  DiffOptions o;
  o.fail_on = FailOn::kSelf;
  {
    const ProfileDiff d = diff_profiles(base, next, o);
    CHECK(function(d, "rare").self.change == Change::kRegression);  // 1.5% on the new side
    CHECK_FALSE(function(d, "tiny_count").self.eligible);         // 0.2% < 1%
  }
  o.min_share_percent = 2;
  CHECK_FALSE(function(diff_profiles(base, next, o), "rare").self.eligible);
  o.min_share_percent = 0;
  o.min_samples = 200;
  CHECK_FALSE(function(diff_profiles(base, next, o), "rare").self.eligible);
  o.min_samples = 0;
  {
    const ProfileDiff d = diff_profiles(base, next, o);
    const FunctionDiff& tiny = function(d, "tiny_count");
    CHECK(tiny.self.eligible);
    CHECK(std::isinf(tiny.self.ratio));
    CHECK(tiny.self.change == Change::kRegression);  // 0 -> 20 of 10000: z = 4.5
  }
  o.threshold_percent = 250;  // rare rose by 200%
  CHECK(function(diff_profiles(base, next, o), "rare").self.change == Change::kNone);
  o.threshold_percent = 5;
  o.min_z = 100;
  CHECK(function(diff_profiles(base, next, o), "rare").self.change == Change::kNone);
  o.min_z = 4;
  o.only = "^tiny";
  {
    const ProfileDiff d = diff_profiles(base, next, o);
    CHECK_FALSE(function(d, "rare").self.eligible);
    CHECK(function(d, "tiny_count").fails_gate);
  }
}

TEST_CASE("diff: one function whether inlined, guessed or not, thread roots are no function, recursion counts once") {
  const Profile base = profile_of({{{fn("main"), fn("f")}, 50},
                                   {{fn("main"), fn("f", "app", kCctInline)}, 50},
                                   {{fn("main"), fn("rec"), fn("rec"), fn("rec")}, 100}});
  const Profile next = profile_of({{{fn("main"), fn("f", "app", kCctGuess)}, 100},
                                   {{fn("main"), fn("rec"), fn("rec")}, 100},
                                   {{fn("other", "[thread]", kCctThread), fn("main")}, 5}});
  DiffOptions o;
  const ProfileDiff d = diff_profiles(base, next, o);
  size_t f_rows = 0;
  for (const auto& row : d.functions) {
    f_rows += row.function == "f";
    CHECK(row.module != "[thread]");
  }
  CHECK(f_rows == 1);
  CHECK(function(d, "f").self.base == 100);
  CHECK(function(d, "f").self.current == 100);
  CHECK(function(d, "rec").total.base == 100);  // not 300
  CHECK(function(d, "rec").total.current == 100);
  CHECK(function(d, "main").total.current == 205);
}

TEST_CASE("diff: contexts are matched by id, siblings with one id are summed, base-only contexts keep their stack") {
  const Profile base = profile_of({{{fn("main"), fn("a"), fn("b")}, 60},
                                   {{fn("main"), fn("a", "app", kCctInline), fn("b")}, 20},
                                   {{fn("main"), fn("gone")}, 20}});
  const Profile next = profile_of({{{fn("main"), fn("a"), fn("b")}, 100}});
  DiffOptions o;
  o.min_share_percent = 0;
  const ProfileDiff d = diff_profiles(base, next, o);
  const uint64_t main_id = child_context_id(0, context_hash("app", "main"));
  const uint64_t ab = child_context_id(child_context_id(main_id, context_hash("app", "a")), context_hash("app", "b"));
  const uint64_t gone = child_context_id(main_id, context_hash("app", "gone"));
  const ContextDiff* found_ab = nullptr;
  const ContextDiff* found_gone = nullptr;
  for (const auto& c : d.contexts) {
    if (c.id == ab) found_ab = &c;
    if (c.id == gone) found_gone = &c;
  }
  REQUIRE(found_ab);
  CHECK(found_ab->self.base == 80);
  CHECK(found_ab->self.current == 100);
  REQUIRE(found_ab->stack.size() == 3);
  CHECK(found_ab->stack[2].function == "b");
  REQUIRE(found_gone);
  CHECK(found_gone->total.current == 0);
  CHECK(found_gone->total.ratio == 0);
  CHECK(found_gone->stack.back().function == "gone");
  CHECK(found_gone->total.change == Change::kImprovement);
}

TEST_CASE("diff: unusable inputs are errors, doubtful ones warnings") {
  auto error_of = [](const Profile& a, const Profile& b, const DiffOptions& o = {}) {
    try {
      diff_profiles(a, b, o);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Profile empty;
  empty.source = "empty.json";
  CHECK_THAT(error_of(bench(300), empty), Catch::Contains("'empty.json' has no samples"));
  Profile reversed = bench(300, "rev.json");
  reversed.reversed = true;
  CHECK_THAT(error_of(reversed, bench(300)), Catch::Contains("leaf-first"));
  DiffOptions bad;
  bad.only = "(";
  CHECK_THAT(error_of(bench(300), bench(300), bad), Catch::Contains("invalid --only regex"));
  CHECK_THROWS_AS(parse_fail_on("never"), Error);
  CHECK(parse_fail_on("both") == FailOn::kBoth);

  Profile other = bench(300, "other.json");
  other.header.command = {"/usr/bin/other", "-x"};
  other.header.event = "cycles";
  const ProfileDiff d = diff_profiles(bench(300, "base.json"), other, {});
  REQUIRE(d.warnings.size() == 2);
  CHECK_THAT(d.warnings[0], Catch::Contains("different programs ('bench' and 'other')"));
  CHECK_THAT(d.warnings[1], Catch::Contains("sampled cpu-clock"));
}

TEST_CASE("diff: profiles of different weight kinds are refused, the same kind compares") {
  Profile wall = bench(300, "wall.json");
  wall.weight_kind = WeightKind::kWall;
  try {
    diff_profiles(bench(300, "cpu.json"), wall, {});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "'cpu.json' weighs cpu time and 'wall.json' weighs wall time: profiles of different weights cannot be "
          "compared (use the same --weight on both)");
  }
  Profile wall_too = bench(300, "wall2.json");
  wall_too.weight_kind = WeightKind::kWall;
  CHECK_NOTHROW(diff_profiles(wall, wall_too, {}));
}

namespace {

// bench() with the program's own frames in module `module`, called from
// libc and the kernel as a real program is.
Profile bench_in(const std::string& module, uint64_t hot) {
  const CctFrame start = fn("__libc_start_main", "libc.so.6");
  const CctFrame read = fn("vfs_read", "[kernel]", kCctKernel);
  return profile_of({{{start, fn("main", module), fn("parse", module), read}, 400},
                     {{start, fn("main", module), fn("compute", module), fn("hot", module)}, hot},
                     {{start, fn("main", module), fn("write", module)}, 300}},
                    module + ".json", "./" + module);
}

}  // namespace

TEST_CASE("diff --ignore-modules: the same program under another name matches by function name") {
  const Profile base = bench_in("app", 300), renamed = bench_in("app-new", 300);
  DiffOptions o;
  o.min_share_percent = 0;
  // By module, every function of the program is new and the gate fails.
  const ProfileDiff by_module = diff_profiles(base, renamed, o);
  CHECK(by_module.regressed());
  CHECK(std::isinf(function(by_module, "hot").total.ratio));
  CHECK(function(by_module, "vfs_read").total.change == Change::kNone);  // below the program's frames: new too
  CHECK(by_module.warnings.size() == 1);                                // different programs

  o.ignore_modules = true;
  const ProfileDiff by_name = diff_profiles(base, renamed, o);
  CHECK_FALSE(by_name.regressed());
  CHECK(by_name.warnings.empty());
  CHECK(by_name.functions.size() == 7);  // one row each: main, parse, compute, hot, write, libc, kernel
  for (const FunctionDiff& f : by_name.functions) {
    INFO(f.function);
    CHECK(f.total.base == f.total.current);
    CHECK(f.total.change == Change::kNone);
  }
  CHECK(function(by_name, "hot").module == "app-new");     // named as in NEW
  CHECK(function(by_name, "vfs_read").module == "[kernel]");
  // Every context of NEW has its counterpart, and keeps NEW's stored id.
  CHECK(by_name.contexts.size() == renamed.tree.nodes().size() - 1);
  for (const ContextDiff& c : by_name.contexts) {
    CHECK(c.total.base == c.total.current);
    bool stored = false;
    for (const CctNode& n : renamed.tree.nodes()) stored |= n.context_id == c.id;
    CHECK(stored);
  }

  // A real change is still found.
  const ProfileDiff slower = diff_profiles(base, bench_in("app-new", 600), o);
  CHECK(slower.regressed());
  CHECK(function(slower, "hot").self.change == Change::kRegression);
}
