#pragma once
// Draws a Browser as lines of text: what the terminal shows, computed
// without one (tui/terminal.h copies it to the screen). Every line is
// exactly the screen's width in columns, padded with spaces:
//
//   line 0           title: swprof browse, the file, the page
//   line 1           the page's column heading
//   lines 2..h-2     the page's rows, the selected one marked
//   line h-1         status: the selection's share and the profile's
//                    totals; the search being typed; a message
//
// Names come from the profiled program: each is made terminal_safe. Without
// UTF-8 (Charset::kAscii) every byte above 0x7f is written \xNN too, tree
// nodes are marked + and -, and a name cut short ends in ~ instead of an
// ellipsis, so every cell is plain ASCII.

#include <cstddef>
#include <string>
#include <vector>

#include "tui/browser.h"

namespace swprof::tui {

enum class Charset { kUtf8, kAscii };

enum class LineStyle { kNormal, kTitle, kHeading, kSelected, kStatus };

struct ScreenLine {
  std::string text;
  LineStyle style = LineStyle::kNormal;
};

// browser.height() lines of browser.width() columns.
std::vector<ScreenLine> render(const Browser& browser, Charset charset);

// The lines as plain text, one per line (tests and debugging).
std::string screen_text(const std::vector<ScreenLine>& lines);

}  // namespace swprof::tui
