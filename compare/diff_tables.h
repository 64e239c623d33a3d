#pragma once
// What the text and markdown diff reports both show: the rows of the
// regressions and improvements tables, the contexts that changed, the
// verdict and the gate in words, and numbers as both print them.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "compare/diff.h"

namespace swprof {

struct DiffReportOptions {
  size_t top = 10;  // rows per table
};

namespace diff_tables {

enum class Metric { kSelf, kTotal };

// One line of a regressions or improvements table: a metric of a function.
struct Row {
  const FunctionDiff* function;
  Metric metric;
  bool gated;  // --fail-on names this metric
  const ShareChange& change() const { return metric == Metric::kSelf ? function->self : function->total; }
  const char* metric_name() const { return metric == Metric::kSelf ? "self" : "total"; }
  bool fails() const { return gated && change().change == Change::kRegression; }
};

// Rows whose metric changed as `kind`, the largest change first.
std::vector<Row> rows_of(const ProfileDiff& d, Change kind);
// Contexts whose total share changed, the largest change first.
std::vector<const ContextDiff*> changed_contexts(const ProfileDiff& d);
// Functions with an improvement of either metric.
size_t improved_functions(const ProfileDiff& d);
// The functions that fail the gate, the largest change first, each once.
std::vector<std::string> failing_names(const ProfileDiff& d);

// `value` printed with one printf conversion.
std::string fixed(const char* format, double value);
// "1.54", "new" (only NEW has samples), "-" (neither has).
std::string ratio_text(double ratio);
// "1 sample", "2 samples".
std::string plural(size_t n, const char* one, const char* many);
// The gate's rule in one sentence.
std::string gate_text(const DiffOptions& o);
// "a, b, c, and 2 more", each name as `quote` writes it.
std::string joined(const std::vector<std::string>& names, size_t most, std::string (*quote)(std::string_view));
// The innermost frames of a stack, "... > b > c" when it is deeper.
std::string short_stack(const std::vector<CctFrame>& stack, size_t frames = 4);

}  // namespace diff_tables
}  // namespace swprof
