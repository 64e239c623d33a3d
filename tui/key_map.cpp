// Keys and what they do (tui/key_map.h).

#include "tui/key_map.h"

namespace swprof::tui {

const std::vector<KeyBinding>& key_bindings() {
  using namespace keys;
  static const std::vector<KeyBinding> bindings = {
      {{kUp, 'k'}, Command::kUp, "Up, k", "select the row above"},
      {{kDown, 'j'}, Command::kDown, "Down, j", "select the row below"},
      {{kPageUp, 'b'}, Command::kPageUp, "PgUp, b", "a page up"},
      {{kPageDown, ' '}, Command::kPageDown, "PgDn, Space", "a page down"},
      {{kHome, 'g'}, Command::kHome, "Home, g", "the first row"},
      {{kEnd, 'G'}, Command::kEnd, "End, G", "the last row"},
      {{kEnter, '\r'}, Command::kActivate, "Enter",
       "open or close a tree node; on a function: its callers and callees"},
      {{kRight, 'l'}, Command::kExpand, "Right, l", "open a tree node (a text: scroll right)"},
      {{kLeft, 'h'}, Command::kCollapse, "Left, h",
       "close a tree node, or go to its parent (a text: scroll left); with nothing to close, back"},
      {{'+'}, Command::kExpandSubtree, "+", "open the node and everything below it"},
      {{'-'}, Command::kCollapseSubtree, "-", "close the node and everything below it"},
      {{'E'}, Command::kExpandAll, "E", "open every node"},
      {{'C'}, Command::kCollapseAll, "C", "close every node"},
      {{kTab}, Command::kSwitchView, "Tab", "switch between top functions and the calling-context tree"},
      {{'s'}, Command::kSort, "s", "top functions: sort by self, total or name"},
      {{'/'}, Command::kSearch, "/", "search function names as you type (Enter keeps, Esc cancels)"},
      {{'n'}, Command::kNextMatch, "n", "next match"},
      {{'N'}, Command::kPreviousMatch, "N", "previous match"},
      {{'c'}, Command::kCallerCallee, "c", "callers and callees of the selected function, merged over its calls"},
      {{'a'}, Command::kAnnotate, "a", "annotate the selected function: source lines, then instructions"},
      {{'?', kF1}, Command::kHelp, "?, F1", "this help"},
      {{kEscape, kBackspace}, Command::kBack, "Esc, Backspace", "back from a callers, annotate or help view"},
      {{kCtrlL}, Command::kRedraw, "Ctrl-L", "redraw the screen"},
      {{'q'}, Command::kQuit, "q", "quit"},
  };
  return bindings;
}

Command command_for(Key key) {
  for (const KeyBinding& b : key_bindings())
    for (Key k : b.keys)
      if (k == key) return b.command;
  return Command::kNone;
}

}  // namespace swprof::tui
