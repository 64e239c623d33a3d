#pragma once
// Interactive flame graph: one self-contained HTML page (no network, no
// external files) drawn on a <canvas> by the embedded script in
// flamegraph_templates/. Width is by samples through a node (its total), or
// by its weight in off-CPU and wall profiles (FlamegraphOptions::off_cpu).
// Besides the flame graph, the page has the sandwich view (a function's
// callers and callees over every place it appears, with the list of
// functions) and, for a profile with a timeline, the time order of each
// thread (output/flamegraph_time_order.h).
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

#include "output/flamegraph_time_order.h"
#include "profile/call_tree.h"
#include "profile/profile.h"

namespace swprof {

// Samples at one source line of a function, for the page's details panel
// ("Source lines", with each line's share of the function's samples listed).
// Filled by whoever has per-line counts; the page lists them when given.
struct FlamegraphSourceLine {
  uint32_t frame = 0;  // a CallTree frame of the function (out-of-line or an inlined copy)
  std::string file;
  uint32_t line = 0;
  uint64_t samples = 0;
};

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

  // The tree runs leaf first (--reverse): a node's children are its
  // callers, so the sandwich view reads callers and callees the other way
  // and a function's self samples are those of the first level.
  bool reversed = false;
  // Lines of functions with their samples (see FlamegraphSourceLine); lines
  // of frames not on the page are left out.
  std::vector<FlamegraphSourceLine> source_lines;
  // The time order holds at most this many blocks (flamegraph_time_order.h).
  size_t max_time_blocks = kMaxTimeBlocks;
};

// Writes the page. Throws swprof::Error when differential options are
// inconsistent with the tree; stream errors are left to the caller's stream.
void write_flamegraph(const CallTree& tree, const FlamegraphOptions& options, std::ostream& out);
// The same for a profile's tree; with its timeline (ProfileOptions::timeline),
// the page has each thread's time order too.
void write_flamegraph(const Profile& profile, const FlamegraphOptions& options, std::ostream& out);

}  // namespace swprof
