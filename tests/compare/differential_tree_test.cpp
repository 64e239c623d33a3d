// make_differential_tree: two profiles in one tree, matched by context id,
// and the page data it gives the flame graph.
#include "compare/differential_tree.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "support/flamegraph_page.h"
#include "support/sample_trees.h"

using nlohmann::json;
using swprof::CallTree;
using swprof::CctFrame;
using swprof::FlamegraphOptions;
using namespace swprof::testing;

TEST_CASE("differential tree: union of contexts, base totals matched by context", "[writer][diff]") {
  const CctFrame main_f{"main", "prog", "", 0, 0};
  const CctFrame a{"a", "prog", "", 0, 0};
  const CctFrame b{"b", "prog", "", 0, 0};
  const CctFrame c{"c", "prog", "", 0, 0};
  CallTree base;
  add_stack(base, {main_f, a}, 60);
  add_stack(base, {main_f, b}, 40);
  CallTree current;
  add_stack(current, {main_f, a}, 20);
  add_stack(current, {main_f, c}, 30);
  add_stack(current, {main_f}, 10);
  const swprof::DifferentialTree diff = swprof::make_differential_tree(base, current);
  const CallTree& t = diff.tree;
  CHECK(t.total() == 60);
  CHECK(diff.base_total == 100);
  REQUIRE(diff.base_totals.size() == t.nodes().size());
  auto find = [&](const std::string& name) {
    for (uint32_t id = 1; id < t.nodes().size(); ++id)
      if (t.frame(t.node(id).frame).function == name) return id;
    return CallTree::kRoot;
  };
  CHECK(t.node(find("main")).total == 60);
  CHECK(t.node(find("main")).self == 10);
  CHECK(diff.base_totals[find("main")] == 100);
  CHECK(t.node(find("a")).total == 20);
  CHECK(diff.base_totals[find("a")] == 60);
  CHECK(t.node(find("b")).total == 0);  // only in the base
  CHECK(diff.base_totals[find("b")] == 40);
  CHECK(t.node(find("c")).total == 30);
  CHECK(diff.base_totals[find("c")] == 0);
  CHECK(t.node(find("b")).context_id == base.node(3).context_id);

  FlamegraphOptions options;
  swprof::set_differential(options, diff);
  const json data = json::parse(data_text(page_of(t, options)));
  CHECK(data["baseTotal"] == 100);
  REQUIRE(data["nodes"].contains("base"));
  CHECK(data["nodes"]["base"].size() == data["nodes"]["total"].size());
  CHECK(data["nodes"]["base"][0] == 100);
}

TEST_CASE("differential tree: with ignore_modules, contexts of renamed binaries are one node", "[writer][diff]") {
  const CctFrame libc{"__libc_start_main", "libc.so.6", "", 0, 0};
  CallTree base, current;
  add_stack(base, {libc, CctFrame{"main", "app", "", 0, 0}, CctFrame{"f", "app", "", 0, 0}}, 40);
  add_stack(current, {libc, CctFrame{"main", "app-new", "", 0, 0}, CctFrame{"f", "app-new", "", 0, 0}}, 30);
  const swprof::DifferentialTree apart = swprof::make_differential_tree(base, current);
  CHECK(apart.tree.nodes().size() == 6);  // root, libc, and main and f twice
  const swprof::DifferentialTree together = swprof::make_differential_tree(base, current, true);
  const CallTree& t = together.tree;
  REQUIRE(t.nodes().size() == 4);
  for (uint32_t id = 1; id < t.nodes().size(); ++id) {
    CHECK(t.frame(t.node(id).frame).module != "app");  // NEW's frames
    CHECK(t.node(id).total == 30);
    CHECK(together.base_totals[id] == 40);
  }
}
