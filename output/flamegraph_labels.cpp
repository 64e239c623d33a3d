#include "output/flamegraph_labels.h"

#include <cinttypes>
#include <cstdio>

#include "common/format.h"

namespace swprof {
namespace {

std::string recording_subtitle(const Profile& profile) {
  char text[256];
  snprintf(text, sizeof text, "%" PRIu64 " samples of %s over %.2f s", profile.samples_kept,
           profile.header.event.empty() ? "events" : profile.header.event.c_str(), profile.duration_seconds());
  std::string subtitle = text;
  if (profile.header.start_unix_ns) subtitle += ", " + format_time(profile.header.start_unix_ns);
  if (!profile.header.host.empty()) subtitle += " on " + profile.header.host;
  if (profile.reversed) subtitle += " (reversed: leaves at the root)";
  return subtitle;
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
