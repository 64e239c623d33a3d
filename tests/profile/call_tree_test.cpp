#include <catch2/catch.hpp>

#include "profile/call_tree.h"
#include "support/profile_fixture.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// FNV-1a 64 written out independently of the implementation.
uint64_t fnv(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace

TEST_CASE("context ids follow id(child) = 3*id(parent) + hash(module, function)") {
  CallTree t;
  add_stack(t, {fn("main"), fn("work", "libw.so")}, 1);
  const uint32_t main_node = find_path(t, {"main"});
  const uint32_t work_node = find_path(t, {"main", "work"});
  REQUIRE(main_node != UINT32_MAX);
  REQUIRE(work_node != UINT32_MAX);
  const uint64_t main_id = 3 * 0 + fnv(std::string("app") + '\0' + "main");
  CHECK(t.node(main_node).context_id == main_id);
  CHECK(t.node(work_node).context_id == 3 * main_id + fnv(std::string("libw.so") + '\0' + "work"));
}

TEST_CASE("context ids: same path same id in another tree, different order different id") {
  CallTree one, two;
  add_stack(one, {fn("x"), fn("y")}, 3);
  add_stack(one, {fn("a"), fn("b"), fn("c")}, 1);
  add_stack(two, {fn("b"), fn("c"), fn("a")}, 1);
  add_stack(two, {fn("a"), fn("b"), fn("c")}, 7);  // other insertion order, other counts
  const uint32_t abc1 = find_path(one, {"a", "b", "c"});
  const uint32_t abc2 = find_path(two, {"a", "b", "c"});
  const uint32_t bca2 = find_path(two, {"b", "c", "a"});
  CHECK(one.node(abc1).context_id == two.node(abc2).context_id);
  CHECK(two.node(bca2).context_id != two.node(abc2).context_id);
  // Source lines and flags are not part of the id.
  CallTree three;
  CctFrame c = fn("c");
  c.file = "/elsewhere.c";
  c.line = 99;
  add_stack(three, {fn("a"), fn("b"), c}, 1);
  CHECK(three.node(find_path(three, {"a", "b", "c"})).context_id == one.node(abc1).context_id);
}

TEST_CASE("tree counts: self, total and weights add up") {
  Profile p = sample_profile();
  const CallTree& t = p.tree;
  CHECK(t.total() == 100);
  CHECK(t.total_weight() == 100 * 1000);
  CHECK(t.node(find_path(t, {"main"})).total == 100);
  CHECK(t.node(find_path(t, {"main", "a"})).total == 70);
  CHECK(t.node(find_path(t, {"main", "a"})).self == 10);
  CHECK(t.node(find_path(t, {"main", "a", "b"})).self == 60);
  CHECK(t.node(find_path(t, {"main", "c", "b"})).total_weight == 25 * 1000);
}

TEST_CASE("frame totals count a recursive function once per sample") {
  Profile p = sample_profile();
  const auto totals = p.tree.frame_totals();
  auto of = [&](const std::string& name) {
    for (size_t i = 0; i < p.tree.frames().size(); ++i)
      if (p.tree.frame(static_cast<uint32_t>(i)).function == name) return totals[i];
    FAIL("no frame " << name);
    return CallTree::FrameTotals{};
  };
  CHECK(of("rec").total == 5);
  CHECK(of("rec").self == 5);
  CHECK(of("b").total == 85);
  CHECK(of("b").self == 85);
  CHECK(of("a").total == 70);
  CHECK(of("a").self == 10);
  CHECK(of("main").total == 100);
  CHECK(of("main").self == 0);
}

TEST_CASE("reversed profiles count self at the leaf") {
  Profile p;
  p.reversed = true;
  add_stack(p.tree, {fn("leaf"), fn("mid"), fn("main")}, 4);
  add_stack(p.tree, {fn("mid"), fn("main")}, 1);
  const auto totals = function_totals(p);
  for (size_t i = 0; i < totals.size(); ++i) {
    const std::string& name = p.tree.frame(static_cast<uint32_t>(i)).function;
    if (name == "leaf") CHECK(totals[i].self == 4);
    if (name == "mid") CHECK(totals[i].self == 1);
    if (name == "main") CHECK(totals[i].self == 0);
    if (name == "main") CHECK(totals[i].total == 5);
  }
}

TEST_CASE("interning keeps frames apart by module and flags") {
  CallTree t;
  const uint32_t a = t.intern(fn("f", "one"));
  CHECK(t.intern(fn("f", "one")) == a);
  CHECK(t.intern(fn("f", "two")) != a);
  CHECK(t.intern(fn("f", "one", kCctInline)) != a);
  // A name that would collide with a naive "function+module" key.
  CHECK(t.intern(fn("fo", "ne")) != a);
}

TEST_CASE("tree off-CPU weights: the off-CPU part of each weight adds up beside it, and merges with add_tree") {
  CallTree t;
  const uint32_t main_fn = t.intern(fn("main"));
  const uint32_t wait = t.intern(fn("wait"));
  const uint32_t work = t.intern(fn("work"));
  const std::vector<uint32_t> waiting{main_fn, wait}, working{main_fn, work};
  t.add(waiting, 1, 4000, 4000);
  t.add(working, 2, 3000);
  t.add(waiting, 1, 1000, 1000);
  const uint32_t w = find_path(t, {"main", "wait"});
  CHECK(t.node(w).self_off_weight == 5000);
  CHECK(t.node(w).total_off_weight == 5000);
  CHECK(t.node(find_path(t, {"main", "work"})).total_off_weight == 0);
  CHECK(t.node(find_path(t, {"main"})).total_off_weight == 5000);
  CHECK(t.node(find_path(t, {"main"})).self_off_weight == 0);
  CHECK(t.total_weight() == 8000);
  CHECK(t.total_off_weight() == 5000);

  CallTree merged;
  merged.add_tree(t);
  merged.add_tree(t);
  CHECK(merged.total_off_weight() == 10000);
  CHECK(merged.node(find_path(merged, {"main", "wait"})).self_off_weight == 10000);
  merged.add_self(find_path(merged, {"main", "wait"}), 1, 7, 7);
  CHECK(merged.total_off_weight() == 10007);
}

TEST_CASE("node_at makes a stack's nodes once, is_path recognizes exactly that stack") {
  CallTree t;
  const uint32_t a = t.intern(fn("a")), b = t.intern(fn("b"));
  const std::vector<uint32_t> ab{a, b};
  const uint32_t node = t.node_at(ab);
  CHECK(t.nodes().size() == 3);  // root, a, a;b
  CHECK(t.node_at(ab) == node);
  CHECK(t.nodes().size() == 3);
  CHECK(t.node(node).self == 0);
  CHECK(t.add(ab, 2, 20) == node);
  CHECK(t.node(node).total == 2);
  CHECK(t.is_path(node, ab));
  CHECK_FALSE(t.is_path(node, std::vector<uint32_t>{b}));
  CHECK_FALSE(t.is_path(node, std::vector<uint32_t>{a}));
  CHECK_FALSE(t.is_path(node, std::vector<uint32_t>{b, a}));
  CHECK_FALSE(t.is_path(node, std::vector<uint32_t>{a, a, b}));
  CHECK(t.is_path(CallTree::kRoot, std::vector<uint32_t>{}));
  CHECK_FALSE(t.is_path(CallTree::kRoot, ab));
  CHECK(t.node_at(std::vector<uint32_t>{}) == CallTree::kRoot);
}
