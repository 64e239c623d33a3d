// `swprof diff --format text`.

#include "compare/diff_text.h"

#include <cstdio>

#include "common/text_escape.h"
#include "output/report_format.h"
#include "profile/info.h"

namespace swprof {
namespace {

using namespace diff_tables;

std::string side_text(const DiffSide& s) {
  std::string t = s.command.empty() ? std::string("(no command)") : quote_command(s.command);
  return t + " (" + s.amount + ", " + fixed("%.2f", s.duration_seconds) + " s)";
}

void write_verdict(const ProfileDiff& d, std::ostream& out) {
  const auto failing = failing_names(d);
  if (!failing.empty())
    out << "\nResult: REGRESSION: " << plural(failing.size(), "function fails", "functions fail")
        << " the gate: " << joined(failing, 8, terminal_safe) << "\n";
  else
    out << "\nResult: no significant regression (" << plural(improved_functions(d), "function", "functions")
        << " improved)\n";
}

void write_rows(const std::vector<Row>& rows, size_t top, std::ostream& out) {
  if (rows.empty()) {
    out << "  (none)\n";
    return;
  }
  out << "    Metric    Base%     New%    Delta   Ratio        z  Function  [module]\n";
  char line[160];
  for (size_t i = 0; i < rows.size() && i < top; ++i) {
    const ShareChange& c = rows[i].change();
    snprintf(line, sizeof line, "  %s %-6s %7.2f  %7.2f  %+7.2f  %6s  %+7.2f  ", rows[i].fails() ? "*" : " ",
             rows[i].metric_name(), c.base_percent, c.new_percent, c.delta_points, ratio_text(c.ratio).c_str(), c.z);
    const FunctionDiff& f = *rows[i].function;
    out << line << terminal_safe(f.function) << "  " << terminal_safe(module_label(f.module)) << "\n";
  }
  if (rows.size() > top) out << "  ... and " << rows.size() - top << " more\n";
}

void write_contexts(const ProfileDiff& d, size_t top, std::ostream& out) {
  const auto changed = changed_contexts(d);
  out << "\nCalling contexts whose total share changed (swprof report --context-id ID decodes an id):\n";
  if (changed.empty()) {
    out << "  (none)\n";
    return;
  }
  out << "     Base%     New%    Delta   Ratio        z  Context id        Stack\n";
  char line[160];
  for (size_t i = 0; i < changed.size() && i < top; ++i) {
    const ShareChange& c = changed[i]->total;
    snprintf(line, sizeof line, "  %7.2f  %7.2f  %+7.2f  %6s  %+7.2f  %s  ", c.base_percent, c.new_percent,
             c.delta_points, ratio_text(c.ratio).c_str(), c.z, format_context_id(changed[i]->id).c_str());
    out << line << terminal_safe(short_stack(changed[i]->stack)) << "\n";
  }
  if (changed.size() > top) out << "  ... and " << changed.size() - top << " more\n";
}

}  // namespace

void write_diff_text(const ProfileDiff& d, const DiffReportOptions& options, std::ostream& out) {
  out << "swprof diff: " << terminal_safe(d.base.source) << " -> " << terminal_safe(d.current.source) << "\n";
  out << "  base:  " << terminal_safe(side_text(d.base)) << "\n";
  out << "  new:   " << terminal_safe(side_text(d.current)) << "\n";
  out << "  gate:  " << terminal_safe(gate_text(d.options)) << "\n";
  for (const auto& w : d.warnings) out << "  warning: " << terminal_safe(w) << "\n";
  write_verdict(d, out);
  out << "\nRegressions (share of " << d.measure << ", base -> new; * fails the gate):\n";
  write_rows(rows_of(d, Change::kRegression), options.top, out);
  out << "\nImprovements:\n";
  write_rows(rows_of(d, Change::kImprovement), options.top, out);
  write_contexts(d, options.top, out);
}

}  // namespace swprof
