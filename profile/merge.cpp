#include "profile/merge.h"

#include <algorithm>

#include "common/error.h"
#include "profile/info.h"

namespace swprof {

void ProfileMerger::add(const Profile& p) {
  const bool first = sources_.empty();
  if (first) {
    merged_.header = p.header;
    merged_.weight_unit = p.weight_unit;
    merged_.unwinder = p.unwinder;
    merged_.reversed = p.reversed;
    merged_.weight_kind = p.weight_kind;
  } else {
    const std::string& first_source = sources_.front();
    if (p.reversed != merged_.reversed)
      throw Error("'" + p.source + "' has " + (p.reversed ? "leaf-first (--reverse)" : "root-first") +
                  " stacks and '" + first_source + "' does not: they cannot be merged");
    if (p.weight_kind != merged_.weight_kind)
      throw Error("'" + p.source + "' weighs " + weight_kind_name(p.weight_kind) + " time and '" + first_source +
                  "' " + weight_kind_name(merged_.weight_kind) + " time: they cannot be merged (use the same --weight)");
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
  merged_.tree.add_tree(p.tree);
  merged_.unwind.add(p.unwind);
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
