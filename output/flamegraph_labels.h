#pragma once
// The title and subtitle a flame graph page shows for a profile.

#include <string>

#include "output/profile_input.h"
#include "profile/profile.h"

namespace swprof {

struct FlamegraphLabels {
  std::string title;
  std::string subtitle;
};

// Title: `title` when not empty, else "swprof: " and the profiled command
// (the profile's source when there is none). Subtitle: for folded stacks
// "N samples"; else "N samples of EVENT over S s", the start time, the host,
// and whether the stacks are reversed.
FlamegraphLabels flamegraph_labels(const Profile& profile, InputKind kind, const std::string& title = "");

}  // namespace swprof
