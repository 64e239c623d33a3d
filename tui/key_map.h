#pragma once
// Keys and what they do. A Key is what the terminal reported: a character
// (its Unicode code point) or one of the named keys below; the terminal
// layer (tui/terminal.h) translates its codes into these, so the browser
// and its tests never see a curses code. The key map is one table: the
// browser reads a key's command from it, and the help page lists it.

#include <cstdint>
#include <string>
#include <vector>

namespace swprof::tui {

using Key = int32_t;

// Named keys: past the last Unicode code point.
namespace keys {
inline constexpr Key kUp = 0x110000;
inline constexpr Key kDown = kUp + 1;
inline constexpr Key kLeft = kUp + 2;
inline constexpr Key kRight = kUp + 3;
inline constexpr Key kPageUp = kUp + 4;
inline constexpr Key kPageDown = kUp + 5;
inline constexpr Key kHome = kUp + 6;
inline constexpr Key kEnd = kUp + 7;
inline constexpr Key kBackspace = kUp + 8;
inline constexpr Key kF1 = kUp + 9;
inline constexpr Key kResize = kUp + 10;  // the terminal changed size (SIGWINCH)
inline constexpr Key kClosed = kUp + 11;  // the terminal's input ended: nothing more will come
inline constexpr Key kEnter = '\n';
inline constexpr Key kEscape = 27;
inline constexpr Key kTab = '\t';
inline constexpr Key kCtrlL = 12;
}  // namespace keys

enum class Command {
  kNone,
  kUp,
  kDown,
  kPageUp,
  kPageDown,
  kHome,
  kEnd,
  kActivate,        // Enter: a tree node opens or closes; a function shows its callers and callees
  kExpand,          // a tree node opens (a function: as kActivate); a text scrolls right
  kCollapse,        // a tree node closes, or the selection goes to its parent; a text scrolls left; else back
  kExpandSubtree,
  kCollapseSubtree,
  kExpandAll,
  kCollapseAll,
  kSwitchView,      // top functions <-> calling-context tree
  kSort,
  kSearch,
  kNextMatch,
  kPreviousMatch,
  kCallerCallee,
  kAnnotate,
  kHelp,
  kBack,
  kRedraw,
  kQuit,
};

struct KeyBinding {
  std::vector<Key> keys;
  Command command;
  const char* label;  // the keys as the help page and docs/browse.md write them
  const char* help;
};

// Every binding, in the order the help page lists them.
const std::vector<KeyBinding>& key_bindings();

// The command of `key`; kNone for a key without one.
Command command_for(Key key);

}  // namespace swprof::tui
