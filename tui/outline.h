#pragma once
// Calling-context trees as an outline that expands and collapses (the tree
// views of browse). The children of each node its children in the tree,
// hottest first (by the Measure; ties by name, so the order is the same at
// every run); a tree's top rows are its root's children, at depth 0. The
// rows are the pre-order of the nodes whose ancestors are all expanded,
// tree after tree.
//
// Besides the rows, every node (shown or not) has a place in the same
// pre-order, as if all were expanded: the order a search goes through.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "profile/call_tree.h"
#include "tui/measure.h"

namespace swprof::tui {

struct OutlineRow {
  uint32_t tree = 0;  // index into the outline's trees
  uint32_t node = 0;
  uint32_t depth = 0;
  bool operator==(const OutlineRow&) const = default;
};

class Outline {
 public:
  // The trees must outlive the outline. Every node starts collapsed.
  Outline(std::vector<const CallTree*> trees, Measure measure);

  const std::vector<OutlineRow>& rows() const { return rows_; }
  size_t tree_count() const { return trees_.size(); }
  const CallTree& tree(uint32_t t) const { return *trees_[t].tree; }
  const CctNode& node(const OutlineRow& r) const { return trees_[r.tree].tree->node(r.node); }
  // A node's children in outline order.
  std::span<const uint32_t> children(uint32_t tree, uint32_t node) const;
  bool has_children(const OutlineRow& r) const { return !children(r.tree, r.node).empty(); }
  bool expanded(const OutlineRow& r) const { return trees_[r.tree].expanded[r.node]; }

  // Expands (and then the single child of a node with one, down the chain:
  // a call path without branches opens in one step) or collapses the node
  // of `row`.
  void set_expanded(size_t row, bool expanded);
  // The node of `row` and every node below it (+, -).
  void set_subtree_expanded(size_t row, bool expanded);
  // Every node (E, C).
  void set_all_expanded(bool expanded);
  // The row of the parent of the node of `row`; nullopt at depth 0.
  std::optional<size_t> parent_row(size_t row) const;

  // Nodes in search order (see above).
  size_t node_count() const { return order().size(); }
  OutlineRow node_at(size_t position) const { return order()[position]; }
  size_t position_of(const OutlineRow& r) const;
  // Expands the ancestors of the node at `position`; returns its row.
  size_t reveal(size_t position);

 private:
  struct Tree {
    const CallTree* tree;
    std::vector<uint32_t> first_child;  // per node, into `children`; one more entry at the end
    std::vector<uint32_t> children;
    std::vector<uint8_t> expanded;      // per node
  };

  // Calls visit(row) for the nodes in pre-order, tree after tree: every
  // node when `all`, else the nodes whose ancestors are expanded.
  template <typename Visit>
  void walk(bool all, Visit visit) const;
  void rebuild();
  const std::vector<OutlineRow>& order() const;

  std::vector<Tree> trees_;
  std::vector<OutlineRow> rows_;
  // Built on the first search: the pre-order of every node, and each node's
  // place in it (per tree, by node).
  mutable std::vector<OutlineRow> order_;
  mutable std::vector<std::vector<uint32_t>> position_;
};

}  // namespace swprof::tui
