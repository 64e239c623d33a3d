#pragma once
// The formats of `swprof diff`'s report.

#include <ostream>
#include <string>
#include <vector>

#include "compare/diff.h"
#include "compare/diff_tables.h"  // DiffReportOptions

namespace swprof {

enum class DiffFormat { kText, kMarkdown, kJson };
// "text", "markdown" (or "md"), "json"; throws Error naming them otherwise.
DiffFormat parse_diff_format(const std::string& name);
// The names parse_diff_format takes, without the "md" alias.
std::vector<std::string> diff_format_names();

// The report in `format`; json ignores `options`, it has every row.
void write_diff_report(const ProfileDiff& diff, DiffFormat format, const DiffReportOptions& options, std::ostream& out);

}  // namespace swprof
