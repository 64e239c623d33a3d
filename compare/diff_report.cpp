// `swprof diff --format text` and `--format markdown`.

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "common/text_escape.h"
#include "compare/diff.h"
#include "output/report.h"
#include "profile/info.h"

namespace swprof {
namespace {

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

bool gate_covers(FailOn fail_on, Metric m) {
  return fail_on == FailOn::kBoth || (fail_on == FailOn::kSelf) == (m == Metric::kSelf);
}

// Rows whose metric changed as `kind`, the largest change first.
std::vector<Row> rows_of(const ProfileDiff& d, Change kind) {
  std::vector<Row> rows;
  for (const FunctionDiff& f : d.functions)
    for (Metric m : {Metric::kSelf, Metric::kTotal}) {
      Row r{&f, m, gate_covers(d.options.fail_on, m)};
      if (r.change().change == kind) rows.push_back(r);
    }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::fabs(a.change().delta_points) > std::fabs(b.change().delta_points);
  });
  return rows;
}

std::vector<const ContextDiff*> changed_contexts(const ProfileDiff& d) {
  std::vector<const ContextDiff*> out;
  for (const ContextDiff& c : d.contexts)
    if (c.total.change != Change::kNone) out.push_back(&c);
  std::stable_sort(out.begin(), out.end(), [](const ContextDiff* a, const ContextDiff* b) {
    return std::fabs(a->total.delta_points) > std::fabs(b->total.delta_points);
  });
  return out;
}

size_t improved_functions(const ProfileDiff& d) {
  return static_cast<size_t>(std::count_if(d.functions.begin(), d.functions.end(), [](const FunctionDiff& f) {
    return f.self.change == Change::kImprovement || f.total.change == Change::kImprovement;
  }));
}

std::string fixed(const char* format, double value) {
  char buf[64];
  snprintf(buf, sizeof buf, format, value);
  return buf;
}

// "1.54", "new" (only NEW has samples), "-" (neither has).
std::string ratio_text(double ratio) {
  if (std::isnan(ratio)) return "-";
  if (std::isinf(ratio)) return "new";
  return fixed(ratio >= 100 ? "%.0f" : "%.2f", ratio);
}

std::string plural(size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

std::string gate_text(const DiffOptions& o) {
  const char* metric = o.fail_on == FailOn::kSelf ? "self" : o.fail_on == FailOn::kTotal ? "total" : "self or total";
  std::string s = "a function fails when its " + std::string(metric) + " share rose by more than " +
                  fixed("%g", o.threshold_percent) + "% (relative) with z >= " + fixed("%g", o.min_z) + ", and it has >= " +
                  fixed("%g", o.min_share_percent) + "% of samples and >= " + std::to_string(o.min_samples) +
                  " samples on either side";
  if (!o.only.empty()) s += ", and its name matches '" + o.only + "'";
  return s;
}

std::vector<std::string> failing_names(const ProfileDiff& d) {
  std::vector<std::string> names;
  for (const Row& r : rows_of(d, Change::kRegression))
    if (r.fails() && std::find(names.begin(), names.end(), r.function->function) == names.end())
      names.push_back(r.function->function);
  return names;
}

// "a, b, c, and 2 more", each name as `quote` writes it.
std::string joined(const std::vector<std::string>& names, size_t most, std::string (*quote)(std::string_view)) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < most; ++i) s += (i ? ", " : "") + quote(names[i]);
  if (names.size() > most) s += ", and " + std::to_string(names.size() - most) + " more";
  return s;
}

// The innermost frames of a stack, "... > b > c" when it is deeper.
std::string short_stack(const std::vector<CctFrame>& stack, size_t frames = 4) {
  std::string s;
  const size_t first = stack.size() > frames ? stack.size() - frames : 0;
  if (first) s = "... > ";
  for (size_t i = first; i < stack.size(); ++i) s += (i > first ? " > " : "") + stack[i].function;
  return s;
}

std::string side_text(const DiffSide& s) {
  std::string t = s.command.empty() ? std::string("(no command)") : quote_command(s.command);
  return t + " (" + plural(s.samples, "sample", "samples") + ", " + fixed("%.2f", s.duration_seconds) + " s)";
}

// ---- text ----

void text_rows(const std::vector<Row>& rows, size_t top, std::ostream& out) {
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

void text_contexts(const ProfileDiff& d, size_t top, std::ostream& out) {
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

// ---- markdown ----
// Every name, module, path and stack is a code span (markdown_table_code in
// table cells), so a crafted name renders as literal text, never as an
// image, a link or HTML; our own sentences go through markdown_text.

void md_rows(const std::vector<Row>& rows, size_t top, bool gate_column, std::ostream& out) {
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

void md_contexts(const ProfileDiff& d, size_t top, std::ostream& out) {
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

void write_diff_text(const ProfileDiff& d, const DiffReportOptions& options, std::ostream& out) {
  out << "swprof diff: " << terminal_safe(d.base.source) << " -> " << terminal_safe(d.current.source) << "\n";
  out << "  base:  " << terminal_safe(side_text(d.base)) << "\n";
  out << "  new:   " << terminal_safe(side_text(d.current)) << "\n";
  out << "  gate:  " << terminal_safe(gate_text(d.options)) << "\n";
  for (const auto& w : d.warnings) out << "  warning: " << terminal_safe(w) << "\n";
  const auto failing = failing_names(d);
  if (!failing.empty())
    out << "\nResult: REGRESSION: " << plural(failing.size(), "function fails", "functions fail")
        << " the gate: " << joined(failing, 8, terminal_safe) << "\n";
  else
    out << "\nResult: no significant regression (" << plural(improved_functions(d), "function", "functions")
        << " improved)\n";
  out << "\nRegressions (share of samples, base -> new; * fails the gate):\n";
  text_rows(rows_of(d, Change::kRegression), options.top, out);
  out << "\nImprovements:\n";
  text_rows(rows_of(d, Change::kImprovement), options.top, out);
  text_contexts(d, options.top, out);
}

void write_diff_markdown(const ProfileDiff& d, const DiffReportOptions& options, std::ostream& out) {
  const auto failing = failing_names(d);
  const auto regressions = rows_of(d, Change::kRegression);
  const auto improvements = rows_of(d, Change::kImprovement);
  if (!failing.empty())
    out << "**swprof diff: performance regression.** " << plural(failing.size(), "function fails", "functions fail")
        << " the gate: " << joined(failing, 5, markdown_code) << ".";
  else
    out << "**swprof diff: no significant regression.**";
  out << " " << plural(improved_functions(d), "function", "functions") << " improved. Base "
      << markdown_code(d.base.source) << ": " << plural(d.base.samples, "sample", "samples") << "; new "
      << markdown_code(d.current.source) << ": " << plural(d.current.samples, "sample", "samples") << ".\n";
  for (const auto& w : d.warnings) out << "\n> Warning: " << markdown_text(w) << "\n";
  out << "\n#### Regressions\n\n";
  md_rows(regressions, options.top, true, out);
  out << "\n#### Improvements\n\n";
  md_rows(improvements, options.top, false, out);
  md_contexts(d, options.top, out);
  out << "\n<sub>Shares of each profile's samples. Gate: " << markdown_text(gate_text(d.options))
      << ". Improvements never fail.</sub>\n";
}

}  // namespace swprof
