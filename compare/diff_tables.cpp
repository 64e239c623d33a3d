#include "compare/diff_tables.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/format.h"

namespace swprof::diff_tables {
namespace {

bool gate_covers(FailOn fail_on, Metric m) {
  return fail_on == FailOn::kBoth || (fail_on == FailOn::kSelf) == (m == Metric::kSelf);
}

}  // namespace

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

std::vector<std::string> failing_names(const ProfileDiff& d) {
  std::vector<std::string> names;
  for (const Row& r : rows_of(d, Change::kRegression))
    if (r.fails() && std::find(names.begin(), names.end(), r.function->function) == names.end())
      names.push_back(r.function->function);
  return names;
}

std::string fixed(const char* format, double value) {
  char buf[64];
  snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::string ratio_text(double ratio) {
  if (std::isnan(ratio)) return "-";
  if (std::isinf(ratio)) return "new";
  return fixed(ratio >= 100 ? "%.0f" : "%.2f", ratio);
}

std::string plural(size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

std::string gate_text(const DiffOptions& o) {
  const char* metric = o.fail_on == FailOn::kSelf ? "self" : o.fail_on == FailOn::kTotal ? "total" : "self or total";
  std::string s = "a function fails when its " + std::string(metric) + " share rose by more than " +
                  plain_number(o.threshold_percent) + "% (relative) with z >= " + plain_number(o.min_z) +
                  ", and it has >= " + plain_number(o.min_share_percent) + "% of samples and >= " + std::to_string(o.min_samples) +
                  " samples on either side";
  if (!o.only.empty()) s += ", and its name matches '" + o.only + "'";
  return s;
}

std::string joined(const std::vector<std::string>& names, size_t most, std::string (*quote)(std::string_view)) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < most; ++i) s += (i ? ", " : "") + quote(names[i]);
  if (names.size() > most) s += ", and " + std::to_string(names.size() - most) + " more";
  return s;
}

std::string short_stack(const std::vector<CctFrame>& stack, size_t frames) {
  std::string s;
  const size_t first = stack.size() > frames ? stack.size() - frames : 0;
  if (first) s = "... > ";
  for (size_t i = first; i < stack.size(); ++i) s += (i > first ? " > " : "") + stack[i].function;
  return s;
}

}  // namespace swprof::diff_tables
