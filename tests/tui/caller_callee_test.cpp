#include "tui/caller_callee.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "profile/function_table.h"
#include "support/profile_fixture.h"

using namespace swprof;
using namespace swprof::testing;
using namespace swprof::tui;

namespace {

// Every root-first path of `tree` with its total, "a>b=12", in the tree's order.
std::vector<std::string> paths(const CallTree& tree) {
  std::vector<std::string> out;
  struct Item {
    uint32_t node;
    std::string path;
  };
  std::vector<Item> pending{{CallTree::kRoot, ""}};
  while (!pending.empty()) {
    Item item = pending.back();
    pending.pop_back();
    const CctNode& n = tree.node(item.node);
    if (item.node != CallTree::kRoot) {
      const CctFrame& f = tree.frame(n.frame);
      item.path += (item.path.empty() ? "" : ">") + f.function + (f.flags & kCctInline ? "(i)" : "");
      out.push_back(item.path + "=" + std::to_string(n.total));
    }
    for (auto c = n.children.rbegin(); c != n.children.rend(); ++c) pending.push_back({*c, item.path});
  }
  std::sort(out.begin(), out.end());
  return out;
}

// F's trees; `f` is interned (a frame never seen has no samples).
CallerCallee of(Profile& p, const CctFrame& f, InlineRows rows = InlineRows::kMerge) {
  const uint32_t frame = p.tree.intern(f);
  return caller_callee(p.tree, row_frames(p.tree, frame, rows), frame);
}

}  // namespace

// sample_profile: main -> a -> b (60), main -> a (10), main -> c -> b (25),
// main -> rec -> rec -> rec (5).
TEST_CASE("tui: caller_callee: callers inverted and merged, callees of every call added together") {
  Profile p = sample_profile();
  const CallerCallee b = of(p, fn("b"));
  CHECK(paths(b.callers) == std::vector<std::string>{"b=85", "b>a=60", "b>a>main=60", "b>c=25", "b>c>main=25"});
  CHECK(paths(b.callees) == std::vector<std::string>{"b=85"});
  CHECK(b.callees.node(b.callees.node(CallTree::kRoot).children[0]).self == 85);
  const CallerCallee a = of(p, fn("a"));
  CHECK(paths(a.callers) == std::vector<std::string>{"a=70", "a>main=70"});
  CHECK(paths(a.callees) == std::vector<std::string>{"a=70", "a>b=60"});
  CHECK(a.callees.node(a.callees.node(CallTree::kRoot).children[0]).self == 10);
}

TEST_CASE("tui: caller_callee: under recursion the outermost call counts, once per sample") {
  Profile p = sample_profile();
  const CallerCallee rec = of(p, fn("rec"));
  CHECK(paths(rec.callers) == std::vector<std::string>{"rec=5", "rec>main=5"});
  CHECK(paths(rec.callees) == std::vector<std::string>{"rec=5", "rec>rec=5", "rec>rec>rec=5"});
  const CallerCallee main = of(p, fn("main"));
  CHECK(main.callees.total() == 100);
  CHECK(paths(main.callers) == std::vector<std::string>{"main=100"});
}

TEST_CASE("tui: caller_callee: inlined copies are the function too, named by the frame asked for") {
  Profile p;
  const CctFrame inlined_f = fn("f", "app", kCctInline);
  add_stack(p.tree, {fn("main"), inlined_f, fn("leaf")}, 10);
  add_stack(p.tree, {fn("main"), fn("g"), fn("f")}, 20);
  const CallerCallee f = of(p, fn("f"));
  CHECK(paths(f.callers) == std::vector<std::string>{"f=30", "f>g=20", "f>g>main=20", "f>main=10"});
  CHECK(paths(f.callees) == std::vector<std::string>{"f=30", "f>leaf=10"});
  // Separately, the out-of-line copy alone.
  const CallerCallee apart = of(p, fn("f"), InlineRows::kSeparate);
  CHECK(paths(apart.callers) == std::vector<std::string>{"f=20", "f>g=20", "f>g>main=20"});
  // Each of the trees' frames names the profile's.
  for (const auto* t : {&f.callers, &f.callees})
    for (uint32_t id = 0; id < t->frames().size(); ++id) {
      const auto& origin = t == &f.callers ? f.callers_profile_frame : f.callees_profile_frame;
      const CctFrame &here = t->frame(id), &there = p.tree.frame(origin[id]);
      CHECK(here.function == there.function);
      CHECK(here.flags == there.flags);
    }
}

TEST_CASE("tui: caller_callee: weights and off-CPU time go along, a function without samples shows alone") {
  Profile p = wall_profile();
  const CallerCallee schedule = of(p, fn("schedule", "[kernel]", kCctKernel));
  const CctNode& f = schedule.callers.node(schedule.callers.node(CallTree::kRoot).children[0]);
  CHECK(f.total == 4);
  CHECK(f.total_weight == 20'000'000);
  CHECK(f.total_off_weight == 20'000'000);
  CHECK(schedule.callees.total_weight() == 20'000'000);
  Profile empty = sample_profile();
  const CallerCallee none = of(empty, fn("never_called"));
  CHECK(paths(none.callers) == std::vector<std::string>{"never_called=0"});
  CHECK(paths(none.callees) == std::vector<std::string>{"never_called=0"});
}
