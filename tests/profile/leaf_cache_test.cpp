#include "profile/leaf_cache.h"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace swprof;

namespace {

// Every stack has the same hash: each lookup meets a collision.
uint64_t one_hash(std::span<const uint32_t>) { return 42; }

// A tree with frames 0..n-1 named f0, f1, ...
CallTree tree_with_frames(int n) {
  CallTree tree;
  for (int i = 0; i < n; ++i) {
    CctFrame f;
    f.function = "f" + std::to_string(i);
    f.module = "app";
    tree.intern(f);
  }
  return tree;
}

}  // namespace

TEST_CASE("leaf cache: a stack's node is the tree's, found again without new nodes", "[leaf_cache]") {
  CallTree tree = tree_with_frames(3);
  LeafCache cache(tree);
  const std::vector<uint32_t> stack{0, 1, 2};
  const uint32_t node = cache.node_at(stack);
  const size_t nodes = tree.nodes().size();
  CHECK(node == tree.node_at(stack));
  CHECK(cache.node_at(stack) == node);
  CHECK(tree.nodes().size() == nodes);
  CHECK(cache.node_at(std::vector<uint32_t>{}) == CallTree::kRoot);
}

TEST_CASE("leaf cache: stacks whose hashes collide stay apart", "[leaf_cache]") {
  CallTree tree = tree_with_frames(3);
  LeafCache cache(tree, one_hash);
  // A prefix, a longer stack through it, another order, a sibling: the
  // same hash for all, four different nodes.
  const std::vector<std::vector<uint32_t>> stacks{{0, 1}, {0, 1, 2}, {1, 0}, {0, 2}, {}};
  std::vector<uint32_t> nodes;
  for (const auto& s : stacks) nodes.push_back(cache.node_at(s));
  for (int round = 0; round < 2; ++round)
    for (size_t i = 0; i < stacks.size(); ++i) {
      CHECK(cache.node_at(stacks[i]) == nodes[i]);
      CHECK(tree.is_path(nodes[i], stacks[i]));
    }
  std::sort(nodes.begin(), nodes.end());
  CHECK(std::adjacent_find(nodes.begin(), nodes.end()) == nodes.end());
}

TEST_CASE("leaf cache: the stack hash depends on order and length", "[leaf_cache]") {
  CHECK(stack_hash(std::vector<uint32_t>{1, 2}) != stack_hash(std::vector<uint32_t>{2, 1}));
  CHECK(stack_hash(std::vector<uint32_t>{0}) != stack_hash(std::vector<uint32_t>{0, 0}));
  CHECK(stack_hash(std::vector<uint32_t>{}) != stack_hash(std::vector<uint32_t>{0}));
}
