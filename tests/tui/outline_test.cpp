#include "tui/outline.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/profile_fixture.h"

using namespace swprof;
using namespace swprof::testing;
using namespace swprof::tui;

namespace {

// The rows as "depth:name" (one per row).
std::vector<std::string> shown(const Outline& o) {
  std::vector<std::string> out;
  for (const OutlineRow& r : o.rows())
    out.push_back(std::to_string(r.depth) + ":" + o.tree(r.tree).frame(o.node(r).frame).function);
  return out;
}

size_t row_named(const Outline& o, const std::string& name, size_t from = 0) {
  for (size_t i = from; i < o.rows().size(); ++i)
    if (o.tree(o.rows()[i].tree).frame(o.node(o.rows()[i]).frame).function == name) return i;
  FAIL("no row " << name);
  return 0;
}

}  // namespace

// sample_profile: main -> a -> b (60), main -> a (10), main -> c -> b (25),
// main -> rec -> rec -> rec (5).
TEST_CASE("tui: outline: collapsed at first, children hottest first, a chain without branches opens in one step") {
  const Profile p = sample_profile();
  Outline o({&p.tree}, Measure(p));
  CHECK(shown(o) == std::vector<std::string>{"0:main"});
  o.set_expanded(0, true);
  CHECK(shown(o) == std::vector<std::string>{"0:main", "1:a", "1:c", "1:rec"});
  o.set_expanded(row_named(o, "rec"), true);
  CHECK(shown(o) == std::vector<std::string>{"0:main", "1:a", "1:c", "1:rec", "2:rec", "3:rec"});
  CHECK(o.parent_row(5) == std::optional<size_t>(4));
  CHECK(o.parent_row(1) == std::optional<size_t>(0));
  CHECK_FALSE(o.parent_row(0));
  o.set_expanded(0, false);
  CHECK(shown(o) == std::vector<std::string>{"0:main"});
  o.set_expanded(0, true);  // what was open below stays open
  CHECK(shown(o).size() == 6);
}

TEST_CASE("tui: outline: a subtree and everything open and close together") {
  const Profile p = sample_profile();
  Outline o({&p.tree}, Measure(p));
  o.set_subtree_expanded(0, true);
  const std::vector<std::string> all = {"0:main", "1:a", "2:b", "1:c", "2:b", "1:rec", "2:rec", "3:rec"};
  CHECK(shown(o) == all);
  o.set_subtree_expanded(row_named(o, "a"), false);
  CHECK(shown(o) == std::vector<std::string>{"0:main", "1:a", "1:c", "2:b", "1:rec", "2:rec", "3:rec"});
  o.set_all_expanded(false);
  CHECK(shown(o) == std::vector<std::string>{"0:main"});
  o.set_all_expanded(true);
  CHECK(shown(o) == all);
}

TEST_CASE("tui: outline: every node has a place in search order, and reveal opens what hides it") {
  const Profile p = sample_profile();
  Outline o({&p.tree}, Measure(p));
  REQUIRE(o.node_count() == 8);
  // The second b (under c) is at position 4 of main a b c b rec rec rec.
  const OutlineRow b_under_c = o.node_at(4);
  CHECK(p.tree.frame(p.tree.node(b_under_c.node).frame).function == "b");
  CHECK(p.tree.frame(p.tree.node(p.tree.node(b_under_c.node).parent).frame).function == "c");
  const size_t row = o.reveal(4);
  CHECK(shown(o) == std::vector<std::string>{"0:main", "1:a", "1:c", "2:b", "1:rec"});
  CHECK(row == 3);
  CHECK(o.position_of(o.rows()[row]) == 4);
}

TEST_CASE("tui: outline: equal totals are ordered by name, several trees follow each other") {
  Profile p;
  add_stack(p.tree, {fn("main"), fn("zeta")}, 5);
  add_stack(p.tree, {fn("main"), fn("alpha")}, 5);
  add_stack(p.tree, {fn("main"), fn("hot")}, 9);
  Profile q;
  add_stack(q.tree, {fn("other")}, 1);
  Outline o({&p.tree, &q.tree}, Measure(p));
  o.set_expanded(0, true);
  CHECK(shown(o) == std::vector<std::string>{"0:main", "1:hot", "1:alpha", "1:zeta", "0:other"});
  CHECK(o.rows().back().tree == 1);
  CHECK(o.node_count() == 5);
}

TEST_CASE("tui: outline: time profiles order children by time") {
  Profile p = wall_profile();
  Outline o({&p.tree}, Measure(p));
  o.set_expanded(0, true);
  // nap (15 ms off-CPU) before work (4 samples, 4 ms).
  CHECK(shown(o) == std::vector<std::string>{"0:main", "1:nap", "1:work", "1:wait_pipe", "1:spin"});
}
