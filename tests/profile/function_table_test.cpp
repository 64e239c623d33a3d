#include "profile/function_table.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "common/error.h"
#include "support/profile_fixture.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

const CctFrame kInlinedCompare = fn("compare", "app", kCctInline);

// A comparator inlined into the merge step and called out of line by the
// recursive sort, inlined into its own caller too:
//   main msort msort merge compare(inlined)  30
//   main msort msort merge compare           20
//   main msort compare                       20
//   main msort compare(inlined)              10
//   main msort msort compare(inlined) msort  20  (recursion through inlined code)
Profile sort_profile(bool reversed = false) {
  Profile p;
  p.reversed = reversed;
  auto stack = [&](std::vector<CctFrame> frames, uint64_t count) {
    if (reversed) std::reverse(frames.begin(), frames.end());
    add_stack(p.tree, frames, count);
  };
  stack({fn("main"), fn("msort"), fn("msort"), fn("merge"), kInlinedCompare}, 30);
  stack({fn("main"), fn("msort"), fn("msort"), fn("merge"), fn("compare")}, 20);
  stack({fn("main"), fn("msort"), fn("compare")}, 20);
  stack({fn("main"), fn("msort"), kInlinedCompare}, 10);
  stack({fn("main"), fn("msort"), fn("msort"), kInlinedCompare, fn("msort")}, 20);
  return p;
}

const FunctionRow& row(const Profile& p, const std::vector<FunctionRow>& rows, const std::string& name,
                       bool inlined = false) {
  for (const FunctionRow& r : rows) {
    const CctFrame& f = p.tree.frame(r.frame);
    if (f.function == name && static_cast<bool>(f.flags & kCctInline) == inlined) return r;
  }
  FAIL("no row " << name);
  throw 0;
}

}  // namespace

TEST_CASE("function table: merge gives one row per function, its inlined share apart, totals once per sample") {
  for (bool reversed : {false, true}) {
    INFO("reversed " << reversed);
    const Profile p = sort_profile(reversed);
    const auto rows = function_table(p, InlineRows::kMerge);
    CHECK(rows.size() == 4);
    const FunctionRow& compare = row(p, rows, "compare");  // the out-of-line frame names the row
    CHECK(compare.self == 80);
    CHECK(compare.inlined_self == 40);
    CHECK(compare.total == 100);
    CHECK(compare.inlined_self_weight == 40 * 1000);
    const FunctionRow& msort = row(p, rows, "msort");
    CHECK(msort.total == 100);  // recursion counts once
    CHECK(msort.self == 20);
    CHECK(row(p, rows, "merge").total == 50);
  }
}

TEST_CASE("function table: caller charges inlined code to the function it was inlined into") {
  const Profile p = sort_profile();
  const auto rows = function_table(p, InlineRows::kCaller);
  CHECK(row(p, rows, "compare").self == 40);
  CHECK(row(p, rows, "compare").total == 40);
  CHECK(row(p, rows, "compare").inlined_self == 0);
  CHECK(row(p, rows, "merge").self == 30);
  CHECK(row(p, rows, "merge").total == 50);
  CHECK(row(p, rows, "msort").self == 30);
  CHECK(row(p, rows, "msort").total == 100);

  // Leaf first, the caller is the frame below the inlined one.
  const Profile r = sort_profile(true);
  const auto leaf_first = function_table(r, InlineRows::kCaller);
  CHECK(row(r, leaf_first, "compare").self == 40);
  CHECK(row(r, leaf_first, "merge").self == 30);
  CHECK(row(r, leaf_first, "msort").self == 30);
}

TEST_CASE("function table: separate keeps inlined copies in rows of their own, thread roots are no rows") {
  Profile p = sort_profile();
  add_stack(p.tree, {fn("worker 1", "[thread]", kCctThread), fn("main")}, 5);
  const auto rows = function_table(p, InlineRows::kSeparate);
  CHECK(row(p, rows, "compare").self == 40);
  CHECK(row(p, rows, "compare", true).self == 40);
  CHECK(row(p, rows, "compare", true).total == 60);
  for (const FunctionRow& r : rows) CHECK_FALSE(p.tree.frame(r.frame).flags & kCctThread);
  CHECK(parse_inline_rows("caller") == InlineRows::kCaller);
  CHECK_THROWS_AS(parse_inline_rows("none"), Error);
}

TEST_CASE("function table: function_key makes a function's inlined copies one function, except under separate") {
  const CctFrame out_of_line = fn("compare");
  const CctFrame guessed = fn("compare", "app", kCctGuess);
  for (InlineRows rows : {InlineRows::kMerge, InlineRows::kCaller}) {
    CHECK(function_key(kInlinedCompare, rows) == function_key(out_of_line, rows));
    CHECK(function_key(guessed, rows) != function_key(out_of_line, rows));
  }
  CHECK(function_key(kInlinedCompare, InlineRows::kSeparate) != function_key(out_of_line, InlineRows::kSeparate));
  CHECK(function_key(fn("compare", "lib"), InlineRows::kMerge) != function_key(out_of_line, InlineRows::kMerge));
  CHECK(function_key(fn("worker [7]", "[thread]", kCctThread), InlineRows::kMerge).empty());
  CHECK_FALSE(function_key(out_of_line, InlineRows::kMerge).empty());
}

TEST_CASE("function table: row_frames gives the frames of a function's row, its inlined copies with it but under separate") {
  Profile p = sort_profile();
  CallTree& t = p.tree;
  const uint32_t compare = t.intern(fn("compare")), inlined = t.intern(kInlinedCompare);
  t.intern(fn("compare", "libother.so"));  // another module's function of that name: another row
  CHECK(row_frames(t, compare, InlineRows::kMerge) == std::vector<uint32_t>{std::min(compare, inlined), std::max(compare, inlined)});
  CHECK(row_frames(t, inlined, InlineRows::kCaller) == row_frames(t, compare, InlineRows::kMerge));
  CHECK(row_frames(t, inlined, InlineRows::kSeparate) == std::vector<uint32_t>{inlined});
  CHECK(row_frames(t, t.intern(fn("main")), InlineRows::kMerge) == std::vector<uint32_t>{t.intern(fn("main"))});
  const uint32_t thread = t.intern(fn("worker [7]", "[thread]", kCctThread));
  t.intern(fn("worker [8]", "[thread]", kCctThread));  // thread roots are no function: each alone
  CHECK(row_frames(t, thread, InlineRows::kMerge) == std::vector<uint32_t>{thread});
}
