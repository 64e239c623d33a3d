#pragma once
// `swprof report --format text`.

#include <cstddef>
#include <ostream>
#include <string>

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

// A line of a frame as the report writes it: `lead` (numbers and
// indentation), the frame's name and module (made terminal_safe), then
// `marks`, in `width` columns (0: no limit). When they do not fit, the name
// is shortened in the middle; its module goes first when the name would keep
// fewer than 30 columns, or holds the module already ("[unknown]
// liblzma.so.5+0x15ae0"); a line still too long is cut at its end.
std::string frame_line(const std::string& lead, const CctFrame& frame, const std::string& marks, size_t width);

// The marks of a top-table row: " (inlined 40%)" when some of a merged
// row's self samples (or, `by_time`, its self time) were in inlined copies
// and some not; else the frame's own marks (frame_marks).
std::string function_row_marks(const FunctionRow& row, const CctFrame& frame, bool by_time);

}  // namespace swprof
