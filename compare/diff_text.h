#pragma once
// `swprof diff --format text`.

#include <ostream>

#include "compare/diff.h"
#include "compare/diff_tables.h"  // DiffReportOptions

namespace swprof {

// For a terminal or a CI log: what was compared, the verdict, the
// regressions and improvements (one row per function and metric), and the
// contexts that changed the most.
void write_diff_text(const ProfileDiff& diff, const DiffReportOptions& options, std::ostream& out);

}  // namespace swprof
