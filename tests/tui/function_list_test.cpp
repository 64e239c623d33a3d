#include "tui/function_list.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/profile_fixture.h"

using namespace swprof;
using namespace swprof::testing;
using namespace swprof::tui;

namespace {

std::vector<std::string> names(const FunctionList& list) {
  std::vector<std::string> out;
  for (size_t i = 0; i < list.rows().size(); ++i) out.push_back(list.frame(i).function);
  return out;
}

}  // namespace

// sample_profile: b self 85 (total 85), a 10 (70), rec 5 (5), main 0 (100), c 0 (25).
TEST_CASE("tui: function list: by self, total or name, each with a tie-break") {
  const Profile p = sample_profile();
  FunctionList list(p, InlineRows::kMerge);
  CHECK(list.order() == FunctionOrder::kSelf);
  CHECK(names(list) == std::vector<std::string>{"b", "a", "rec", "main", "c"});
  list.sort_next();
  CHECK(list.order() == FunctionOrder::kTotal);
  CHECK(names(list) == std::vector<std::string>{"main", "b", "a", "c", "rec"});
  list.sort_next();
  CHECK(list.order() == FunctionOrder::kName);
  CHECK(names(list) == std::vector<std::string>{"a", "b", "c", "main", "rec"});
  list.sort_next();
  CHECK(list.order() == FunctionOrder::kSelf);
  CHECK(std::string(function_order_name(FunctionOrder::kTotal)) == "total");
}

TEST_CASE("tui: function list: an inlined function is one row with its out-of-line copy unless separate") {
  Profile p;
  add_stack(p.tree, {fn("main"), fn("f", "app", kCctInline)}, 10);
  add_stack(p.tree, {fn("main"), fn("g"), fn("f")}, 20);
  const FunctionList merged(p, InlineRows::kMerge);
  CHECK(names(merged) == std::vector<std::string>{"f", "main", "g"});
  CHECK(merged.rows()[0].self == 30);
  CHECK(merged.rows()[0].inlined_self == 10);
  const FunctionList apart(p, InlineRows::kSeparate);
  CHECK(names(apart) == std::vector<std::string>{"f", "f", "main", "g"});
}

TEST_CASE("tui: function list: time profiles sort by time") {
  const Profile p = wall_profile();
  const FunctionList list(p, InlineRows::kMerge);
  // schedule: 20 ms off-CPU over 4 samples, work 4 ms over 4 samples.
  CHECK(names(list).front() == "schedule");
}
