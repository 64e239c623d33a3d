#include "cli/terminal_width.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "common/error.h"

namespace swprof::cli {
namespace {

// COLUMNS as a number of columns; 0 when it is unset or no positive number.
size_t columns_variable() {
  const char* text = std::getenv("COLUMNS");
  if (!text || !*text) return 0;
  char* end = nullptr;
  const unsigned long value = std::strtoul(text, &end, 10);
  if (*end != '\0' || text[0] == '-' || value > 100000) return 0;
  return static_cast<size_t>(value);
}

size_t terminal_columns() {
  if (!isatty(STDOUT_FILENO)) return 0;
  winsize size{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

}  // namespace

size_t standard_output_width() {
  size_t width = columns_variable();
  if (width == 0) width = terminal_columns();
  return width == 0 ? 0 : std::max(width, kMinReportWidth);
}

size_t report_width(std::optional<size_t> asked, bool to_stdout) {
  if (asked) {
    if (*asked != 0 && *asked < kMinReportWidth)
      throw Error("--width " + std::to_string(*asked) + " is too narrow for a report: give 0 (no limit) or at least " +
                  std::to_string(kMinReportWidth));
    return *asked;
  }
  return to_stdout ? standard_output_width() : 0;
}

}  // namespace swprof::cli
