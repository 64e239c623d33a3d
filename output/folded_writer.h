#pragma once
// `swprof report --format folded` (output/folded_reader.h reads it back).

#include <ostream>
#include <string>

#include "profile/call_tree.h"

namespace swprof {

struct FoldedOptions {
  bool modules = false;  // "module`function" instead of "function"
  bool weights = false;  // each stack's weight (ns of off-CPU or wall time) instead of its samples
};
// Brendan Gregg's folded stacks: "root;...;leaf count", one line per distinct
// stack, sorted. Inline, kernel and guessed frames carry the _[i], _[k], _[g]
// suffixes that flame-graph tools understand.
void write_folded(const CallTree& tree, const FoldedOptions& options, std::ostream& out);
// One frame as the folded format writes it.
std::string folded_frame_name(const CctFrame& frame, bool modules);

}  // namespace swprof
