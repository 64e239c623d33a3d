#pragma once
// The tree's node of each stack already seen, by a hash of its frame ids:
// a stack that repeats (a hot loop's, very often) finds its node with one
// probe instead of a child lookup per frame. Every hit is checked against
// the tree (the node's path must be the stack), so two stacks whose hashes
// collide are never merged: the later one walks the tree and takes the slot.

#include <cstdint>
#include <span>

#include "common/flat_index.h"
#include "profile/call_tree.h"

namespace swprof {

// A hash of a stack's frame ids, in order.
uint64_t stack_hash(std::span<const uint32_t> stack);

class LeafCache {
 public:
  using StackHash = uint64_t (*)(std::span<const uint32_t>);

  // `hash`: stack_hash; tests give a weaker one to force collisions.
  explicit LeafCache(CallTree& tree, StackHash hash = stack_hash) : tree_(tree), hash_(hash) {}

  // tree.node_at(stack_root_first): found in the cache, or made and cached.
  uint32_t node_at(std::span<const uint32_t> stack_root_first);

 private:
  struct Identity {  // the hash is its own slot's hash: mixed already
    uint64_t operator()(uint64_t h) const { return h; }
  };

  CallTree& tree_;
  StackHash hash_;
  FlatIndex<uint64_t, Identity> by_hash_;
};

}  // namespace swprof
