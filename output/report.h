#pragma once
// The report formats of `swprof report`, each written from a Profile.

#include <cstdint>
#include <istream>
#include <ostream>
#include <string>

#include "profile/profile.h"

namespace swprof {

enum class ReportFormat { kText, kFolded, kJson, kSpeedscope };
// Throws Error naming the formats for an unknown one.
ReportFormat parse_report_format(const std::string& name);

struct TextReportOptions {
  double min_percent = 0.5;  // tree nodes below this share of samples are not shown
  size_t top = 25;           // rows of the top-functions table
};
// A header (command, duration, samples, lost, unwind quality), a table of the
// functions with the most self samples, and the calling-context tree.
void write_text_report(const Profile& profile, const TextReportOptions& options, std::ostream& out);

struct FoldedOptions {
  bool modules = false;  // "module`function" instead of "function"
};
// Brendan Gregg's folded stacks: "root;...;leaf count", one line per distinct
// stack, sorted. Inline, kernel and guessed frames carry the _[i], _[k], _[g]
// suffixes that flame-graph tools understand.
void write_folded(const CallTree& tree, const FoldedOptions& options, std::ostream& out);
// One frame as the folded format writes it.
std::string folded_frame_name(const CctFrame& frame, bool modules);

// docs/json-format.md describes this format.
inline constexpr int kJsonProfileVersion = 1;
void write_json_profile(const Profile& profile, std::ostream& out);
// Reads a profile written by write_json_profile; throws Error (one line) for
// anything else, another version, or damage.
Profile read_json_profile(const std::string& path);
// The same from a stream; `path` names the source in messages and is the
// profile's source when its metadata gives none.
Profile read_json_profile(std::istream& in, const std::string& path);

// The speedscope file format: one sampled profile per thread.
void write_speedscope(const Profile& profile, std::ostream& out);

// Context ids are shown as 16 hex digits.
std::string format_context_id(uint64_t id);

}  // namespace swprof
