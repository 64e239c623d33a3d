#pragma once
// Interactive flame graph: one self-contained HTML page (no network, no
// external files) drawn on a <canvas> by the embedded script in
// flamegraph_templates/. Width is by samples through a node (its total), or
// by its weight in off-CPU and wall profiles (FlamegraphOptions::off_cpu).
//
// The page embeds the profile as compact JSON in
// <script type="application/json" id="swprof-data"> (see flamegraph_data in
// flamegraph.cpp for the format); every string from the profile is written
// there with script-safe escapes and is only ever shown with textContent or
// canvas fillText.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "profile/call_tree.h"

namespace swprof {

struct FlamegraphOptions {
  std::string title = "swprof";
  std::string subtitle;
  bool icicle = false;             // root at the top (initial state; the page can toggle)
  std::string unit = "samples";    // what a count is, for the page's texts
  // Off-CPU and wall profiles: widths by the nodes' weights (ns) instead of
  // their samples, and each node's off-CPU part in the page ("off"), which
  // colours mostly off-CPU frames blue and the others warm.
  bool off_cpu = false;
  // Nodes whose total is below this fraction of all samples are left out of
  // the page (with their subtrees); 0 keeps every node. The page itself merges
  // frames narrower than half a pixel at the current zoom, so this is only to
  // make very large profiles smaller. Samples of a left-out node show as self
  // samples of its parent.
  double min_fraction = 0;

  // Differential mode: when `differential` is set, base_totals[node] is the
  // total of the same calling context (same context id) in a base profile,
  // for every node of the tree, and base_total the base profile's root total.
  // Frames are coloured red where the share of samples grew, blue where it
  // shrank; the tooltip shows both shares. compare/differential_tree.h
  // makes such a tree and its base totals from two profiles.
  bool differential = false;
  std::vector<uint64_t> base_totals;
  uint64_t base_total = 0;
};

// Writes the page. Throws swprof::Error when differential options are
// inconsistent with the tree; stream errors are left to the caller's stream.
void write_flamegraph(const CallTree& tree, const FlamegraphOptions& options, std::ostream& out);

}  // namespace swprof
