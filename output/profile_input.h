#pragma once
// The input of the commands that read a profile (report, flamegraph, diff,
// merge): a recording, built into a profile by the pipeline; a JSON profile
// written by `swprof report --format json`; or, for flame graphs, folded
// stacks.

#include <functional>
#include <string>

#include "profile/profile.h"

namespace swprof {

enum class InputKind { kRecording, kJsonProfile, kFolded };

// From the file's first bytes: a recording's magic, else a JSON object, else
// folded stacks. Throws Error when the file cannot be read, and for a
// perf.data file (which `swprof import` would have to convert).
InputKind detect_input(const std::string& path);

// Filters and thread options work on recordings only: throws Error when
// `filters_given` for an input of another kind.
void require_recording_for_filters(bool filters_given, const std::string& path, InputKind kind);

struct ProfileInputOptions {
  // Made (and checked) only when the input is a recording.
  std::function<ProfileOptions()> recording;
  bool filters_given = false;  // filters or thread options were asked for
  bool folded = false;         // folded stacks are an input (else they are read as a recording: an error)
};

// The profile of `path`, of `kind` (detect_input). A folded input gives a
// profile whose source is `path` and whose tree holds the stacks.
Profile load_profile_input(const std::string& path, InputKind kind, const ProfileInputOptions& options);

}  // namespace swprof
