#pragma once
// `swprof info` as text: what a recording holds, and how well it unwinds.
// Every text that comes from the recording is shown terminal_safe.

#include <string>
#include <vector>

#include "profile/info.h"

namespace swprof {

// The header, record counts, samples (with the --stack-size suggestion),
// threads, binaries and the read status.
std::string format_info(const RecordingInfo& info);

// The lines under one binary in the "binaries:" section: its kind and
// package, its unwind and name information, and what to improve.
std::string format_binary_report(const BinaryReport& report, const std::string& package,
                                 const std::vector<std::string>& advice);

// "archive:" line: the archive found for the recording, what it holds and
// how many binaries it supplied.
std::string format_archive(const InfoResult& result);

// "unwind quality" section: complete stacks, frames per stepper, why walks
// ended early.
std::string format_unwind_quality(const UnwindStats& stats, UnwinderChoice unwinder);

}  // namespace swprof
