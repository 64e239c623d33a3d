// Calling-context trees as an outline that expands and collapses (tui/outline.h).

#include "tui/outline.h"

#include <algorithm>
#include <tuple>

namespace swprof::tui {
namespace {

// Children of every node ordered hottest first, as one array with each
// node's first index (compressed rows).
void order_children(const CallTree& tree, const Measure& m, std::vector<uint32_t>& first,
                    std::vector<uint32_t>& children) {
  const std::vector<CctNode>& nodes = tree.nodes();
  first.assign(nodes.size() + 1, 0);
  for (size_t n = 0; n < nodes.size(); ++n) first[n + 1] = first[n] + static_cast<uint32_t>(nodes[n].children.size());
  children.resize(first.back());
  auto hotter = [&](uint32_t a, uint32_t b) {
    const uint64_t ta = m.total(nodes[a]), tb = m.total(nodes[b]);
    if (ta != tb) return ta > tb;
    const CctFrame &fa = tree.frame(nodes[a].frame), &fb = tree.frame(nodes[b].frame);
    return std::tie(fa.function, fa.module, fa.flags) < std::tie(fb.function, fb.module, fb.flags);
  };
  for (size_t n = 0; n < nodes.size(); ++n) {
    auto begin = children.begin() + first[n];
    std::copy(nodes[n].children.begin(), nodes[n].children.end(), begin);
    std::sort(begin, begin + static_cast<long>(nodes[n].children.size()), hotter);
  }
}

}  // namespace

Outline::Outline(std::vector<const CallTree*> trees, Measure measure) {
  for (const CallTree* t : trees) {
    Tree tree{t, {}, {}, std::vector<uint8_t>(t->nodes().size(), 0)};
    order_children(*t, measure, tree.first_child, tree.children);
    trees_.push_back(std::move(tree));
  }
  rebuild();
}

std::span<const uint32_t> Outline::children(uint32_t tree, uint32_t node) const {
  const Tree& t = trees_[tree];
  return {t.children.data() + t.first_child[node], t.first_child[node + 1] - t.first_child[node]};
}

void Outline::set_expanded(size_t row, bool expanded) {
  if (row >= rows_.size()) return;
  const OutlineRow r = rows_[row];
  Tree& t = trees_[r.tree];
  t.expanded[r.node] = expanded;
  for (uint32_t node = r.node; expanded;) {
    const std::span<const uint32_t> kids = children(r.tree, node);
    if (kids.size() != 1) break;
    node = kids[0];
    t.expanded[node] = true;
  }
  rebuild();
}

void Outline::set_subtree_expanded(size_t row, bool expanded) {
  if (row >= rows_.size()) return;
  const OutlineRow r = rows_[row];
  std::vector<uint32_t> pending{r.node};
  while (!pending.empty()) {
    const uint32_t node = pending.back();
    pending.pop_back();
    trees_[r.tree].expanded[node] = expanded;
    for (uint32_t c : children(r.tree, node)) pending.push_back(c);
  }
  rebuild();
}

void Outline::set_all_expanded(bool expanded) {
  for (Tree& t : trees_) std::fill(t.expanded.begin(), t.expanded.end(), expanded);
  rebuild();
}

std::optional<size_t> Outline::parent_row(size_t row) const {
  if (row >= rows_.size() || rows_[row].depth == 0) return std::nullopt;
  // The parent is the nearest row above one level up.
  size_t at = row;
  while (rows_[at].depth >= rows_[row].depth) --at;
  return at;
}

template <typename Visit>
void Outline::walk(bool all, Visit visit) const {
  struct Item {
    uint32_t node, depth;
  };
  std::vector<Item> pending;
  for (uint32_t t = 0; t < trees_.size(); ++t) {
    auto push_children = [&](uint32_t node, uint32_t depth) {
      const std::span<const uint32_t> kids = children(t, node);
      for (auto it = kids.rbegin(); it != kids.rend(); ++it) pending.push_back({*it, depth});
    };
    push_children(CallTree::kRoot, 0);
    while (!pending.empty()) {
      const Item item = pending.back();
      pending.pop_back();
      visit(OutlineRow{t, item.node, item.depth});
      if (all || trees_[t].expanded[item.node]) push_children(item.node, item.depth + 1);
    }
  }
}

void Outline::rebuild() {
  rows_.clear();
  walk(false, [&](const OutlineRow& r) { rows_.push_back(r); });
}

const std::vector<OutlineRow>& Outline::order() const {
  if (!order_.empty()) return order_;
  position_.resize(trees_.size());
  for (uint32_t t = 0; t < trees_.size(); ++t) position_[t].assign(trees_[t].tree->nodes().size(), 0);
  walk(true, [&](const OutlineRow& r) {
    position_[r.tree][r.node] = static_cast<uint32_t>(order_.size());
    order_.push_back(r);
  });
  return order_;
}

size_t Outline::position_of(const OutlineRow& r) const {
  order();
  return position_[r.tree][r.node];
}

size_t Outline::reveal(size_t position) {
  const OutlineRow target = order()[position];
  Tree& t = trees_[target.tree];
  for (uint32_t at = t.tree->node(target.node).parent; at != CallTree::kRoot; at = t.tree->node(at).parent)
    t.expanded[at] = true;
  rebuild();
  return static_cast<size_t>(std::find(rows_.begin(), rows_.end(), target) - rows_.begin());
}

}  // namespace swprof::tui
