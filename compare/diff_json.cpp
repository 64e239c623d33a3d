// `swprof diff --format json` (docs/diff-format.md) and `--folded`.

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "compare/diff.h"
#include "output/json_fields.h"
#include "output/report.h"

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

}  // namespace

void write_diff_json(const ProfileDiff& d, std::ostream& out) {
  const DiffOptions& o = d.options;
  out << "{\n\"format\": \"swprof-diff\",\n\"version\": " << kDiffJsonVersion << ",\n";
  out << "\"result\": \"" << (d.regressed() ? "regression" : "ok") << "\",\n";
  out << "\"failing\": " << d.failing() << ",\n";
  const json options{{"threshold_percent", o.threshold_percent},
                     {"min_share_percent", o.min_share_percent},
                     {"min_samples", o.min_samples},
                     {"min_z", o.min_z},
                     {"fail_on", fail_on_name(o.fail_on)},
                     {"only", o.only}};
  out << "\"options\": " << dump_json(options) << ",\n";
  out << "\"base\": " << dump_json(side_json(d.base)) << ",\n";
  out << "\"new\": " << dump_json(side_json(d.current)) << ",\n";
  out << "\"warnings\": " << dump_json(json(d.warnings)) << ",\n";
  out << "\"functions\": [";
  for (size_t i = 0; i < d.functions.size(); ++i) {
    const FunctionDiff& f = d.functions[i];
    const json j{{"name", f.function},         {"module", f.module},          {"kernel", f.kernel},
                 {"fails_gate", f.fails_gate}, {"self", change_json(f.self)}, {"total", change_json(f.total)}};
    out << (i ? ",\n " : "\n ") << dump_json(j);
  }
  out << "\n],\n\"contexts\": [";
  for (size_t i = 0; i < d.contexts.size(); ++i) {
    const ContextDiff& c = d.contexts[i];
    json stack = json::array();
    for (const CctFrame& f : c.stack) stack.push_back(frame_json(f));
    const json j{{"id", format_context_id(c.id)},
                 {"stack", stack},
                 {"self", change_json(c.self)},
                 {"total", change_json(c.total)}};
    out << (i ? ",\n " : "\n ") << dump_json(j);
  }
  out << "\n]\n}\n";
}

void write_diff_folded(const CallTree& base, const CallTree& current, std::ostream& out) {
  // Per context id with samples of its own on either side: the folded stack
  // (NEW's names when NEW has it) and both counts.
  struct Line {
    std::string stack;
    uint64_t base = 0, current = 0;
  };
  std::unordered_map<uint64_t, Line> by_id;
  auto collect = [&by_id](const CallTree& tree, bool is_current) {
    std::vector<std::string> names;
    for (const CctFrame& f : tree.frames()) names.push_back(folded_frame_name(f, false));
    for (uint32_t i = 1; i < tree.nodes().size(); ++i) {
      const CctNode& n = tree.node(i);
      if (!n.self) continue;
      Line& line = by_id[n.context_id];
      if (line.stack.empty())
        for (uint32_t f : tree.path(i)) line.stack += (line.stack.empty() ? "" : ";") + names[f];
      (is_current ? line.current : line.base) += n.self;
    }
  };
  collect(current, true);
  collect(base, false);
  std::map<std::string, std::pair<uint64_t, uint64_t>> sorted;
  for (const auto& [id, line] : by_id) {
    auto& counts = sorted[line.stack];
    counts.first += line.base;
    counts.second += line.current;
  }
  for (const auto& [stack, counts] : sorted) out << stack << ' ' << counts.first << ' ' << counts.second << '\n';
}

}  // namespace swprof
