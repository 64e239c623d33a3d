#pragma once
// `swprof diff --format markdown`.

#include <ostream>

#include "compare/diff.h"
#include "compare/diff_tables.h"  // DiffReportOptions

namespace swprof {

// For a pull-request comment: a summary line and tables of the top
// regressions and improvements.
void write_diff_markdown(const ProfileDiff& diff, const DiffReportOptions& options, std::ostream& out);

}  // namespace swprof
