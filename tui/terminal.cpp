// The terminal, through ncurses (tui/terminal.h).

#include "tui/terminal.h"

#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <term.h>  // setupterm; its capability macros (lines, columns, ...) are not used below
#include <langinfo.h>
#include <unistd.h>

#include <cerrno>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/error.h"
#include "common/text_escape.h"

namespace swprof::tui {
namespace {

enum ColorPair : short { kBarColors = 1, kSelectedColors = 2 };

// How long a lone Esc waits for the rest of an escape sequence: ncurses'
// default (1 s) makes Esc feel stuck; over ssh a sequence's bytes arrive
// together, so a tenth of a second is plenty.
constexpr int kEscapeDelayMs = 100;

Key translate(int result, wint_t c) {
  if (result == OK) {
    if (c == '\r') return keys::kEnter;
    if (c == 0x7f || c == 8) return keys::kBackspace;
    return static_cast<Key>(c);
  }
  switch (c) {
    case KEY_UP: return keys::kUp;
    case KEY_DOWN: return keys::kDown;
    case KEY_LEFT: return keys::kLeft;
    case KEY_RIGHT: return keys::kRight;
    case KEY_PPAGE: return keys::kPageUp;
    case KEY_NPAGE: return keys::kPageDown;
    case KEY_HOME: return keys::kHome;
    case KEY_END: return keys::kEnd;
    case KEY_BACKSPACE: return keys::kBackspace;
    case KEY_ENTER: return keys::kEnter;
    case KEY_F(1): return keys::kF1;
    case KEY_RESIZE: return keys::kResize;
    default: return 0;
  }
}

Error unknown_terminal() {
  const char* term = std::getenv("TERM");
  return Error(std::string("cannot use the terminal: TERM is ") +
               (term ? "'" + terminal_safe(term) + "', which this machine has no description of" : "not set") +
               " (try TERM=xterm-256color)");
}

}  // namespace

void check_terminal() {
  int status = 0;
  if (setupterm(nullptr, STDOUT_FILENO, &status) != OK) throw unknown_terminal();
  del_curterm(cur_term);
}

Terminal::Terminal() {
  // The character set only: numbers keep the C locale's decimal point.
  std::setlocale(LC_CTYPE, "");
  charset_ = std::strcmp(nl_langinfo(CODESET), "UTF-8") == 0 ? Charset::kUtf8 : Charset::kAscii;
  set_escdelay(kEscapeDelayMs);
  screen_ = newterm(nullptr, stdout, stdin);
  if (!screen_) throw unknown_terminal();
  set_term(screen_);
  cbreak();
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  curs_set(0);
  if (has_colors() && start_color() == OK) {
    use_default_colors();
    colors_ = init_pair(kBarColors, COLOR_WHITE, COLOR_BLUE) == OK && init_pair(kSelectedColors, COLOR_BLACK, COLOR_CYAN) == OK;
  }
}

Terminal::~Terminal() {
  endwin();
  delscreen(screen_);
}

size_t Terminal::width() const { return static_cast<size_t>(std::max(COLS, 0)); }
size_t Terminal::height() const { return static_cast<size_t>(std::max(LINES, 0)); }

void Terminal::draw(const std::vector<ScreenLine>& screen_lines) {
  erase();
  for (size_t y = 0; y < screen_lines.size() && y < height(); ++y) {
    attr_t attrs = A_NORMAL;
    short pair = 0;
    switch (screen_lines[y].style) {
      case LineStyle::kNormal: break;
      case LineStyle::kHeading: attrs = A_BOLD; break;
      case LineStyle::kTitle:
      case LineStyle::kStatus:
        if (colors_) pair = kBarColors;
        else attrs = A_REVERSE;
        break;
      case LineStyle::kSelected:
        if (colors_) pair = kSelectedColors;
        else attrs = A_REVERSE;
        break;
    }
    attr_set(attrs, pair, nullptr);
    // The last cell of the last line may not move the cursor on: ERR there
    // is expected, the text is drawn.
    mvaddnstr(static_cast<int>(y), 0, screen_lines[y].text.c_str(), static_cast<int>(screen_lines[y].text.size()));
  }
  attr_set(A_NORMAL, 0, nullptr);
  refresh();
}

void Terminal::redraw() { clearok(curscr, TRUE); }

Key Terminal::read_key() {
  for (;;) {
    wint_t c = 0;
    errno = 0;
    const int result = get_wch(&c);
    if (result == ERR && errno == EINTR) continue;  // a signal interrupted the wait
    if (result == ERR) return keys::kClosed;        // the terminal is gone (its input ended)
    if (const Key key = translate(result, c)) return key;
  }
}

}  // namespace swprof::tui
