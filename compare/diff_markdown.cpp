// `swprof diff --format markdown`.
//
// Every name, module, path and stack is a code span (markdown_table_code in
// table cells), so a crafted name renders as literal text, never as an
// image, a link or HTML; our own sentences go through markdown_text.

#include "compare/diff_markdown.h"

#include "common/text_escape.h"
#include "output/report_format.h"

namespace swprof {
namespace {

using namespace diff_tables;

void write_summary(const ProfileDiff& d, std::ostream& out) {
  const auto failing = failing_names(d);
  if (!failing.empty())
    out << "**swprof diff: performance regression.** " << plural(failing.size(), "function fails", "functions fail")
        << " the gate: " << joined(failing, 5, markdown_code) << ".";
  else
    out << "**swprof diff: no significant regression.**";
  out << " " << plural(improved_functions(d), "function", "functions") << " improved. Base "
      << markdown_code(d.base.source) << ": " << d.base.amount << "; new "
      << markdown_code(d.current.source) << ": " << d.current.amount << ".\n";
}

void write_rows(const std::vector<Row>& rows, size_t top, bool gate_column, std::ostream& out) {
  if (rows.empty()) {
    out << "None.\n";
    return;
  }
  out << (gate_column ? "| Gate " : "") << "| Function | Module | Metric | Base % | New % | Δ points | Ratio | z |\n";
  out << (gate_column ? "|---" : "") << "|---|---|---|---:|---:|---:|---:|---:|\n";
  for (size_t i = 0; i < rows.size() && i < top; ++i) {
    const ShareChange& c = rows[i].change();
    if (gate_column) out << "| " << (rows[i].fails() ? "fails " : " ");
    out << "| " << markdown_table_code(rows[i].function->function) << " | "
        << markdown_table_code(rows[i].function->module) << " | "
        << rows[i].metric_name() << " | " << fixed("%.2f", c.base_percent) << " | " << fixed("%.2f", c.new_percent)
        << " | " << fixed("%+.2f", c.delta_points) << " | " << ratio_text(c.ratio) << " | " << fixed("%+.1f", c.z)
        << " |\n";
  }
  if (rows.size() > top) out << "\n… and " << rows.size() - top << " more (see the JSON report).\n";
}

void write_contexts(const ProfileDiff& d, size_t top, std::ostream& out) {
  const auto changed = changed_contexts(d);
  if (changed.empty()) return;
  out << "\n<details><summary>Calling contexts whose total share changed (" << changed.size() << ")</summary>\n\n";
  out << "| Context id | Stack | Base % | New % | Δ points | z |\n|---|---|---:|---:|---:|---:|\n";
  for (size_t i = 0; i < changed.size() && i < top; ++i) {
    const ShareChange& c = changed[i]->total;
    out << "| " << markdown_table_code(format_context_id(changed[i]->id)) << " | "
        << markdown_table_code(short_stack(changed[i]->stack))
        << " | " << fixed("%.2f", c.base_percent) << " | " << fixed("%.2f", c.new_percent) << " | "
        << fixed("%+.2f", c.delta_points) << " | " << fixed("%+.1f", c.z) << " |\n";
  }
  if (changed.size() > top) out << "\n… and " << changed.size() - top << " more.\n";
  out << "\n`swprof report --context-id ID PROFILE` prints a context's whole stack.\n\n</details>\n";
}

}  // namespace

void write_diff_markdown(const ProfileDiff& d, const DiffReportOptions& options, std::ostream& out) {
  write_summary(d, out);
  for (const auto& w : d.warnings) out << "\n> Warning: " << markdown_text(w) << "\n";
  out << "\n#### Regressions\n\n";
  write_rows(rows_of(d, Change::kRegression), options.top, true, out);
  out << "\n#### Improvements\n\n";
  write_rows(rows_of(d, Change::kImprovement), options.top, false, out);
  write_contexts(d, options.top, out);
  out << "\n<sub>Shares of each profile's " << d.measure << ". Gate: " << markdown_text(gate_text(d.options))
      << ". Improvements never fail.</sub>\n";
}

}  // namespace swprof
