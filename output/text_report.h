#pragma once
// `swprof report --format text`.

#include <cstddef>
#include <ostream>

#include "profile/function_table.h"
#include "profile/profile.h"

namespace swprof {

struct TextReportOptions {
  double min_percent = 0.5;  // tree nodes below this share of samples are not shown
  size_t top = 25;           // rows of the top-functions table
  // Display columns every line fits in; 0: no limit. Names are shortened in
  // the middle (output/text_width.h), modules dropped when a name needs the
  // room, and nothing is ever wrapped onto a line of its own.
  size_t width = 0;
  // Tree levels shown below "all"; a node at the last level with calls below
  // it gets one "…" line for them. 0: every level.
  size_t tree_depth = 0;
  InlineRows inlined = InlineRows::kMerge;  // rows of the top table
};
// A header (command, duration, samples, lost, unwind quality), a table of the
// functions with the most self samples, and the calling-context tree. Tree
// levels past kIndentLevels (fewer in a narrow width) are indented no
// further: their depth below that level is shown as "[+N]".
void write_text_report(const Profile& profile, const TextReportOptions& options, std::ostream& out);

// Tree levels indented at most, with no width limit.
inline constexpr size_t kIndentLevels = 16;

}  // namespace swprof
