#pragma once
// `swprof diff --format json`: everything, for tools (docs/diff-format.md).

#include <ostream>

#include "compare/diff.h"

namespace swprof {

inline constexpr int kDiffJsonVersion = 1;
void write_diff_json(const ProfileDiff& diff, std::ostream& out);

}  // namespace swprof
