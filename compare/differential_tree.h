#pragma once
// Two profiles in one tree for a differential flame graph
// (output/flamegraph.h's differential mode).

#include <cstdint>
#include <vector>

#include "output/flamegraph.h"
#include "profile/call_tree.h"

namespace swprof {

// The tree holds every calling context of either profile (matched by context
// id), with the counts of `current`; base_totals holds, per node of that
// tree, the total of `base`. Contexts only in `base` get nodes with zero
// counts (zero width). With `ignore_modules`, contexts match by
// compare/context_match.h's ids.
struct DifferentialTree {
  CallTree tree;
  std::vector<uint64_t> base_totals;
  uint64_t base_total = 0;
};
DifferentialTree make_differential_tree(const CallTree& base, const CallTree& current, bool ignore_modules = false);

// Sets options.differential, base_totals and base_total from `diff`.
void set_differential(FlamegraphOptions& options, const DifferentialTree& diff);

}  // namespace swprof
