#include "output/merge.h"

#include <algorithm>

#include "common/error.h"
#include "output/recording_info.h"

namespace swprof {
namespace {

// Adds every node of `from` at the same path in `to`. Nodes come parent
// first, so each parent's counterpart exists when its children are added.
void add_tree(CallTree& to, const CallTree& from) {
  std::vector<uint32_t> node_in_to(from.nodes().size(), CallTree::kRoot);
  std::vector<uint32_t> frame_in_to(from.frames().size());
  for (size_t f = 0; f < from.frames().size(); ++f) frame_in_to[f] = to.intern(from.frame(static_cast<uint32_t>(f)));
  for (uint32_t i = 1; i < from.nodes().size(); ++i) {
    const CctNode& n = from.node(i);
    node_in_to[i] = to.child(node_in_to[n.parent], frame_in_to[n.frame]);
    if (n.self || n.self_weight) to.add_self(node_in_to[i], n.self, n.self_weight);
  }
  const CctNode& root = from.node(CallTree::kRoot);
  if (root.self || root.self_weight) to.add_self(CallTree::kRoot, root.self, root.self_weight);
}

void add_unwind_stats(UnwindStats& to, const UnwindStats& from) {
  to.samples += from.samples;
  to.complete += from.complete;
  to.frames += from.frames;
  to.guessed_frames += from.guessed_frames;
  for (size_t k = 0; k < to.frames_by_stepper.size(); ++k) to.frames_by_stepper[k] += from.frames_by_stepper[k];
  for (const auto& [end, n] : from.ends) to.ends[end] += n;
}

}  // namespace

void ProfileMerger::add(const Profile& p) {
  const bool first = sources_.empty();
  if (first) {
    merged_.header = p.header;
    merged_.weight_unit = p.weight_unit;
    merged_.unwinder = p.unwinder;
    merged_.reversed = p.reversed;
  } else {
    const std::string& first_source = sources_.front();
    if (p.reversed != merged_.reversed)
      throw Error("'" + p.source + "' has " + (p.reversed ? "leaf-first (--reverse)" : "root-first") +
                  " stacks and '" + first_source + "' does not: they cannot be merged");
    if (p.header.command != merged_.header.command)
      warnings_.push_back("'" + p.source + "' profiles '" + quote_command(p.header.command) + "', '" + first_source +
                          "' profiles '" + quote_command(merged_.header.command) + "'; merged anyway");
    if (p.header.event != merged_.header.event || p.weight_unit != merged_.weight_unit)
      warnings_.push_back("'" + p.source + "' sampled " + p.header.event + " (" + p.weight_unit + "), '" + first_source +
                          "' sampled " + merged_.header.event + " (" + merged_.weight_unit +
                          "); merged anyway, weights mix units");
    if (p.header.start_unix_ns && (!merged_.header.start_unix_ns || p.header.start_unix_ns < merged_.header.start_unix_ns))
      merged_.header.start_unix_ns = p.header.start_unix_ns;
  }
  sources_.push_back(p.source);
  add_tree(merged_.tree, p.tree);
  add_unwind_stats(merged_.unwind, p.unwind);
  merged_.samples_read += p.samples_read;
  merged_.lost += p.lost;
  duration_ns_ += p.last_time > p.first_time ? p.last_time - p.first_time : 0;
  for (const auto& [tid, t] : p.threads) {
    auto [it, inserted] = merged_.threads.try_emplace(tid, t);
    if (!inserted) it->second.samples += t.samples;
  }
  for (const auto& w : p.warnings)
    if (std::find(merged_.warnings.begin(), merged_.warnings.end(), w) == merged_.warnings.end())
      merged_.warnings.push_back(w);
}

Profile ProfileMerger::take() {
  if (sources_.empty()) throw Error("nothing to merge");
  Profile p = std::move(merged_);
  p.source.clear();
  for (const auto& s : sources_) p.source += (p.source.empty() ? "" : " + ") + s;
  p.samples_kept = p.tree.total();
  p.first_time = 0;
  p.last_time = duration_ns_;
  p.tree.sort_children();
  merged_ = Profile();
  sources_.clear();
  duration_ns_ = 0;
  return p;
}

}  // namespace swprof
