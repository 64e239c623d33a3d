#pragma once
// `swprof merge`: several profiles of the same benchmark pooled into one.
// Nodes are matched by their path of frames from the root, so a context
// keeps its calling-context id and the counts of every input add up exactly:
// the merged node's self, total and weights are the sums over the inputs.

#include <string>
#include <vector>

#include "profile/profile.h"

namespace swprof {

class ProfileMerger {
 public:
  // Adds one profile (they can be dropped after this). Throws Error when it
  // cannot be pooled with the ones before it (leaf-first versus root-first
  // stacks); commands, events or units that differ only give a warning.
  void add(const Profile& profile);
  size_t inputs() const { return sources_.size(); }
  // The pooled profile: samples, lost samples, unwind statistics and
  // durations summed; the first input's header; threads by tid (samples of a
  // tid seen twice summed); the inputs' warnings, each once; `source` lists
  // the inputs.
  Profile take();
  // Why the inputs may not belong together (different commands, ...).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  Profile merged_;
  uint64_t duration_ns_ = 0;
  std::vector<std::string> sources_;
  std::vector<std::string> warnings_;
};

}  // namespace swprof
