#include "output/flamegraph_labels.h"

#include <cinttypes>
#include <cstdio>

#include "common/format.h"

namespace swprof {
namespace {

// "; wall time 24.000 ms, 83.3 % off-CPU" or "; off-CPU time 20.000 ms":
// what the widths are, for profiles that weigh off-CPU time.
std::string weight_note(const Profile& profile) {
  const CallTree& tree = profile.tree;
  char text[128];
  if (profile.weight_kind == WeightKind::kCpu) return "";
  if (profile.weight_kind == WeightKind::kOffCpu)
    return "; off-CPU time " + format_duration(tree.total_off_weight());
  snprintf(text, sizeof text, "; wall time %s, %.1f %% off-CPU", format_duration(tree.total_weight()).c_str(),
           percent(tree.total_off_weight(), tree.total_weight()));
  return text;
}

std::string recording_subtitle(const Profile& profile) {
  char text[256];
  snprintf(text, sizeof text, "%" PRIu64 " samples of %s over %.2f s", profile.samples_kept,
           profile.header.event.empty() ? "events" : profile.header.event.c_str(), profile.duration_seconds());
  std::string subtitle = text;
  if (profile.header.start_unix_ns) subtitle += ", " + format_time(profile.header.start_unix_ns);
  if (!profile.header.host.empty()) subtitle += " on " + profile.header.host;
  if (profile.reversed) subtitle += " (reversed: leaves at the root)";
  return subtitle + weight_note(profile);
}

}  // namespace

FlamegraphLabels flamegraph_labels(const Profile& profile, InputKind kind, const std::string& title) {
  FlamegraphLabels labels;
  const std::string command = quote_command(profile.header.command);
  labels.title = !title.empty() ? title : "swprof: " + (command.empty() ? profile.source : command);
  labels.subtitle = kind == InputKind::kFolded ? std::to_string(profile.tree.total()) + " samples"
                                               : recording_subtitle(profile);
  return labels;
}

}  // namespace swprof
