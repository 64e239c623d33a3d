#pragma once
// Reads Brendan Gregg's folded stack format into a CallTree:
//
//   main;parse;read_line 12
//   main;compute 3.5
//
// one stack per line, root first, frames separated by ';', then whitespace and
// a sample count (integer or decimal). Blank lines are skipped. Frames may
// carry the annotations swprof's folded writer uses:
//
//   module`function   the module, split at the first backtick
//   function_[i]      inlined frame       (kCctInline)
//   function_[k]      kernel frame        (kCctKernel; module "[kernel]" when none is given)
//   function_[g]      guessed frame       (kCctGuess)
//   function_[j]      JIT-compiled frame  (module "[jit]" when none is given)
//
// Suffixes may be combined ("f_[i]_[g]"). Malformed lines throw swprof::Error
// "SOURCE:LINE: what is wrong".

#include <istream>
#include <string>
#include <string_view>

#include "profile/call_tree.h"

namespace swprof {

struct FoldedReadOptions {
  // Counts are multiplied by this before they become whole samples. Fractional
  // results are rounded so that the running sum stays within 1/2 of the exact
  // one: lines of 0.4 give 0, 1, 0, 1, 0 ... rather than all 0.
  double scale = 1.0;
};

// Reads the stream line by line; `source_name` names it in error messages.
CallTree read_folded(std::istream& in, const std::string& source_name, const FoldedReadOptions& options = {});
// Opens and reads a file ("-" is not special here).
CallTree read_folded_file(const std::string& path, const FoldedReadOptions& options = {});

// Why the text starting with `head` (a file's first bytes; all of the file
// when `whole`) is not folded stacks: what its first non-blank line is
// instead, binary data or a line that does not end with a sample count.
// Empty when that line reads as a stack and a count, when there is none,
// and when it goes on past `head` as text (the reader then judges it).
std::string why_not_folded(std::string_view head, bool whole);

// One frame's text with its annotations decoded. The function may be empty
// (the reader reports that as an error).
CctFrame parse_folded_frame(std::string_view text);

}  // namespace swprof
