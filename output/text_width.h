#pragma once
// Text that fits a number of terminal columns: display widths of UTF-8 text,
// and C++ names shortened in the middle so that their own name stays visible.
// Every function takes text already made terminal_safe (valid UTF-8 without
// control characters); a byte that is not valid UTF-8 counts one column.

#include <cstddef>
#include <string>
#include <string_view>

namespace swprof {

// The columns a terminal gives `text`: 2 for East Asian wide and fullwidth
// characters and emoji, 0 for combining marks and zero-width characters, 1
// for everything else.
size_t display_width(std::string_view text);

// `text` cut at its end to at most `columns` columns, its last column an
// ellipsis ("…") when anything was cut. Characters are never split.
std::string fit_end(std::string_view text, size_t columns);

// A function name in at most `columns` columns, whole when it fits. Else, in
// this order until it fits:
//   1. the longest template argument list of the outermost level becomes
//      "<…>", again and again: "std::map<int, std::string>::find" ->
//      "std::map<…>::find";
//   2. the argument list of the function becomes "(…)";
//   3. the middle becomes "…", keeping a third of the room for the start
//      and the rest for the end, which holds the function's own name.
// An empty result only for 0 columns.
std::string shorten_name(std::string_view name, size_t columns);

}  // namespace swprof
