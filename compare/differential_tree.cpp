#include "compare/differential_tree.h"

#include <unordered_map>
#include <utility>

#include "compare/context_match.h"

namespace swprof {

DifferentialTree make_differential_tree(const CallTree& base, const CallTree& current, bool ignore_modules) {
  DifferentialTree diff;
  CallTree& tree = diff.tree;
  tree.add_tree(current);  // the current profile: same stacks, same counts
  // Base profile: matched by context id, added where missing.
  std::unordered_map<uint64_t, uint32_t> by_context;
  const std::vector<uint64_t> ids = matching_context_ids(tree, ignore_modules);
  for (uint32_t id = 0; id < tree.nodes().size(); ++id) by_context.emplace(ids[id], id);
  const std::vector<uint64_t> base_ids = matching_context_ids(base, ignore_modules);
  std::vector<uint32_t> base_map(base.nodes().size(), CallTree::kRoot);
  std::vector<std::pair<uint32_t, uint64_t>> base_counts;  // (tree node, base total)
  for (uint32_t id = 1; id < base.nodes().size(); ++id) {
    const CctNode& n = base.node(id);
    auto [it, inserted] = by_context.try_emplace(base_ids[id], 0);
    if (inserted) it->second = tree.child(base_map[n.parent], tree.intern(base.frame(n.frame)));
    base_map[id] = it->second;
    base_counts.emplace_back(it->second, n.total);
  }
  diff.base_totals.assign(tree.nodes().size(), 0);
  diff.base_totals[CallTree::kRoot] = base.total();
  for (auto [node, total] : base_counts) diff.base_totals[node] += total;
  diff.base_total = base.total();
  return diff;
}

void set_differential(FlamegraphOptions& options, const DifferentialTree& diff) {
  options.differential = true;
  options.base_totals = diff.base_totals;
  options.base_total = diff.base_total;
}

}  // namespace swprof
