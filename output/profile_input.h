#pragma once
// The input of the commands that read a profile (report, flamegraph, diff,
// merge): a recording, built into a profile by the pipeline; a JSON profile
// written by `swprof report --format json`; or, for flame graphs, folded
// stacks.

#include <functional>
#include <memory>
#include <string>

#include "profile/profile.h"
#include "recording/recording_bytes.h"

namespace swprof {

// kOther: none of them (a program, a script, any other file).
enum class InputKind { kRecording, kJsonProfile, kFolded, kOther };

// An input opened once: its kind, from its first bytes, and the open file
// a recording's profile is built from (its path is not opened again).
struct ProfileInputFile {
  std::string path;
  InputKind kind = InputKind::kOther;
  std::shared_ptr<const RecordingBytes> file;
};

// Opens `path` and tells its kind from its first bytes: a recording's (or
// perf.data's) magic, else a JSON object, else folded stacks when its first
// line reads as a stack and a count, else kOther. Throws Error when the file
// cannot be read.
ProfileInputFile open_profile_input(const std::string& path);
// open_profile_input(path).kind
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
// profile whose source is `path` and whose tree holds the stacks. Throws
// Error for kOther, saying what the file is instead.
Profile load_profile_input(const std::string& path, InputKind kind, const ProfileInputOptions& options);
// The same for an input opened already: a recording is read from the open file.
Profile load_profile_input(const ProfileInputFile& input, const ProfileInputOptions& options);

}  // namespace swprof
