// `swprof diff --format json` (docs/diff-format.md).

#include "compare/diff_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "output/json_fields.h"
#include "output/report_format.h"

namespace swprof {
namespace {

using json = nlohmann::ordered_json;

// Four decimals: enough for shares in percent, and stable text for goldens.
json rounded(double v) {
  if (!std::isfinite(v)) return nullptr;
  return std::round(v * 1e4) / 1e4;
}

json change_json(const ShareChange& c) {
  return json{{"base", c.base},
              {"new", c.current},
              {"base_percent", rounded(c.base_percent)},
              {"new_percent", rounded(c.new_percent)},
              {"delta_points", rounded(c.delta_points)},
              {"ratio", rounded(c.ratio)},
              {"z", rounded(c.z)},
              {"eligible", c.eligible},
              {"significant", c.significant},
              {"change", change_name(c.change)}};
}

json side_json(const DiffSide& s) {
  return json{{"source", s.source},
              {"command", s.command},
              {"event", s.event},
              {"samples", s.samples},
              {"duration_seconds", rounded(s.duration_seconds)}};
}

json frame_json(const CctFrame& f) {
  json j{{"name", f.function}, {"module", f.module}};
  if (f.flags) j["flags"] = frame_flags_json(f.flags);
  return j;
}

json options_json(const DiffOptions& o) {
  return json{{"threshold_percent", o.threshold_percent},
              {"min_share_percent", o.min_share_percent},
              {"min_samples", o.min_samples},
              {"min_z", o.min_z},
              {"fail_on", fail_on_name(o.fail_on)},
              {"only", o.only},
              {"ignore_modules", o.ignore_modules}};
}

json function_json(const FunctionDiff& f) {
  return json{{"name", f.function},         {"module", f.module},          {"kernel", f.kernel},
              {"fails_gate", f.fails_gate}, {"self", change_json(f.self)}, {"total", change_json(f.total)}};
}

json context_json(const ContextDiff& c) {
  json stack = json::array();
  for (const CctFrame& f : c.stack) stack.push_back(frame_json(f));
  return json{{"id", format_context_id(c.id)},
              {"stack", stack},
              {"self", change_json(c.self)},
              {"total", change_json(c.total)}};
}

}  // namespace

void write_diff_json(const ProfileDiff& d, std::ostream& out) {
  out << "{\n\"format\": \"swprof-diff\",\n\"version\": " << kDiffJsonVersion << ",\n";
  out << "\"result\": \"" << (d.regressed() ? "regression" : "ok") << "\",\n";
  out << "\"failing\": " << d.failing() << ",\n";
  out << "\"options\": " << dump_json(options_json(d.options)) << ",\n";
  out << "\"base\": " << dump_json(side_json(d.base)) << ",\n";
  out << "\"new\": " << dump_json(side_json(d.current)) << ",\n";
  out << "\"warnings\": " << dump_json(json(d.warnings)) << ",\n";
  out << "\"functions\": [";
  for (size_t i = 0; i < d.functions.size(); ++i) out << (i ? ",\n " : "\n ") << dump_json(function_json(d.functions[i]));
  out << "\n],\n\"contexts\": [";
  for (size_t i = 0; i < d.contexts.size(); ++i) out << (i ? ",\n " : "\n ") << dump_json(context_json(d.contexts[i]));
  out << "\n]\n}\n";
}

}  // namespace swprof
