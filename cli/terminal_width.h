#pragma once
// The width the text report fits in, decided here and handed to the library
// as a number of columns (0: no limit).

#include <cstddef>
#include <optional>

namespace swprof::cli {

// Narrower widths are not worth fitting a report into: COLUMNS and a
// terminal narrower than this give this.
inline constexpr size_t kMinReportWidth = 40;

// The columns of a report written to standard output when --width is not
// given: COLUMNS when it holds a positive number, else the terminal's width
// when standard output is a terminal, else 0: piped output is never cut
// (perf report --stdio does the same), so grep and files get whole names.
size_t standard_output_width();

// What --width asked for (nullopt: not given) and where the report goes
// (`to_stdout`): --width, else standard_output_width() for standard output,
// else 0 (a file gets whole lines). Throws Error for a --width from 1 to
// kMinReportWidth - 1.
size_t report_width(std::optional<size_t> asked, bool to_stdout);

}  // namespace swprof::cli
