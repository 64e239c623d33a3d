#pragma once
// The functions of a profile with their self and total samples: the rows of
// the text report's top table. A function inlined in some places and called
// in others is one function: how its inlined code counts is InlineRows.
// The calling-context tree itself keeps inline frames as nodes of their own.

#include <cstdint>
#include <string>
#include <vector>

#include "profile/profile.h"

namespace swprof {

enum class InlineRows {
  // One row per function: its inlined and out-of-line copies together, with
  // the inlined share of its self samples (FunctionRow::inlined_self).
  kMerge,
  // Inlined code counts for the function it was inlined into (the physical
  // function, as a symbol table sees it): an inlined frame is no row, and
  // its self samples are its caller's.
  kCaller,
  // A row per frame: inlined copies apart from out-of-line ones.
  kSeparate,
};

// "merge", "caller", "separate".
const char* inline_rows_name(InlineRows rows);
// The value a name gives; throws Error naming the choices for another name.
InlineRows parse_inline_rows(const std::string& name);
std::vector<std::string> inline_rows_names();

// What makes frames one function under `rows`: frames with equal keys are
// one row of function_table (name, module and marks; under kMerge and
// kCaller the inline mark does not count). A thread root is no function: its
// key is empty.
std::string function_key(const CctFrame& frame, InlineRows rows);

struct FunctionRow {
  uint32_t frame = 0;  // a frame of the function (out-of-line when it has one): its name, module, marks
  uint64_t self = 0, total = 0, self_weight = 0, total_weight = 0;
  // Of self and self_weight, what inlined copies had (kMerge only).
  uint64_t inlined_self = 0, inlined_self_weight = 0;
};

// A row per function with samples on its stacks, in frame order; totals
// count a sample once even when the function recurses, or appears inlined
// and out of line on one stack. Thread roots are no rows. Works whichever way
// the tree runs (--reverse).
std::vector<FunctionRow> function_table(const Profile& profile, InlineRows rows);

// The frames of `tree` that make up the row of `frame` under `rows`: the
// function's frames (inlined and out of line, under kSeparate only those
// with `frame`'s flags), by index; `frame` alone for a thread root.
std::vector<uint32_t> row_frames(const CallTree& tree, uint32_t frame, InlineRows rows);

}  // namespace swprof
