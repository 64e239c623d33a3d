#pragma once
// The terminal, through ncurses: the only file that includes curses.h. It
// opens the terminal on standard input and output, copies rendered lines
// (tui/render.h) to it and reads keys, translated into tui::Key. Made for
// 80x24 and ssh: no mouse, the keypad's keys, a resize seen as
// keys::kResize (ncurses turns SIGWINCH into KEY_RESIZE).

#include <cstddef>
#include <vector>

#include "tui/key_map.h"
#include "tui/render.h"

struct screen;  // ncurses' SCREEN

namespace swprof::tui {

// Throws Error when TERM names no terminal this machine describes: what
// Terminal() would find, checked before the profile is read.
void check_terminal();

class Terminal {
 public:
  // Takes over the terminal (the alternate screen, no echo, keys one at a
  // time). Throws Error when TERM names no terminal this machine describes.
  Terminal();
  // Gives the terminal back as it was.
  ~Terminal();
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  // UTF-8 when the locale's character set is (LANG, LC_ALL, LC_CTYPE).
  Charset charset() const { return charset_; }
  size_t width() const;
  size_t height() const;

  void draw(const std::vector<ScreenLine>& lines);
  // Everything drawn again at the next draw (Ctrl-L: a screen garbled over
  // a noisy line).
  void redraw();
  // Waits for a key.
  Key read_key();

 private:
  ::screen* screen_ = nullptr;
  Charset charset_ = Charset::kAscii;
  bool colors_ = false;
};

}  // namespace swprof::tui
