// `swprof report --format json` (docs/json-format.md).

#include "output/json_profile_writer.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <numeric>
#include <vector>

#include "output/json_fields.h"
#include "output/report_format.h"

namespace swprof {
namespace {

using nlohmann::json;

json header_json(const Profile& p) {
  const RecordingHeader& h = p.header;
  json j{{"source", p.source},
              {"mode", h.mode},
              {"command", h.command},
              {"target_pid", h.target_pid},
              {"event", h.event},
              {"frequency", h.frequency},
              {"period", h.period},
              {"host", h.host},
              {"kernel_release", h.kernel_release},
              {"start_unix_ns", h.start_unix_ns},
              {"duration_seconds", p.duration_seconds()},
              {"samples_read", p.samples_read},
              {"samples", p.samples_kept},
              {"lost", p.lost},
              {"weight_unit", p.weight_unit},
              {"reversed", p.reversed},
              {"swprof_version", SWPROF_VERSION}};
  // Absent means cpu: profiles of on-CPU samples read as before.
  if (p.weight_kind != WeightKind::kCpu) j["weight_kind"] = weight_kind_name(p.weight_kind);
  return j;
}

json unwind_json(const Profile& p) {
  const UnwindStats& u = p.unwind;
  json by_stepper = json::object();
  for (size_t k = 1; k < u.frames_by_stepper.size(); ++k)
    if (u.frames_by_stepper[k]) by_stepper[stepper_name(static_cast<StepperKind>(k))] = u.frames_by_stepper[k];
  json ends = json::object();
  for (const auto& [end, n] : u.ends) ends[walk_end_name(end)] = n;
  return json{{"unwinder", p.unwinder == UnwinderChoice::kChain ? "chain" : "libunwind"},
              {"samples", u.samples},
              {"complete", u.complete},
              {"frames", u.frames},
              {"guessed_frames", u.guessed_frames},
              {"frames_by_stepper", by_stepper},
              {"walk_ends", ends}};
}

json threads_json(const Profile& p) {
  json threads = json::array();
  for (const auto& [tid, t] : p.threads)
    threads.push_back({{"tid", tid}, {"pid", t.pid}, {"comm", t.comm}, {"samples", t.samples}});
  return threads;
}

void write_frames(const CallTree& tree, std::ostream& out) {
  out << "\"frames\": [";
  for (size_t i = 0; i < tree.frames().size(); ++i) {
    const CctFrame& f = tree.frame(static_cast<uint32_t>(i));
    json j{{"name", f.function}, {"module", f.module}};
    if (!f.file.empty()) j["file"] = f.file;
    if (f.line) j["line"] = f.line;
    if (f.flags) j["flags"] = frame_flags_json(f.flags);
    out << (i ? ",\n " : "\n ") << dump_json(j);
  }
  out << "\n],\n";
}

// Nodes in depth-first order: a node's parent always comes before it, and
// its position in this array is its index.
void write_nodes(const CallTree& tree, bool off_cpu, std::ostream& out) {
  out << "\"nodes\": [";
  std::vector<int64_t> index(tree.nodes().size(), -1);
  std::vector<uint32_t> stack{CallTree::kRoot};
  int64_t next = 0;
  while (!stack.empty()) {
    const uint32_t id = stack.back();
    stack.pop_back();
    const CctNode& n = tree.node(id);
    index[id] = next;
    json j{{"id", format_context_id(n.context_id)},
           {"parent", id == CallTree::kRoot ? -1 : index[n.parent]},
           {"frame", id == CallTree::kRoot ? -1 : static_cast<int64_t>(n.frame)},
           {"self", n.self},
           {"total", n.total},
           {"self_weight", n.self_weight},
           {"total_weight", n.total_weight}};
    if (off_cpu) {
      j["self_off_cpu_weight"] = n.self_off_weight;
      j["total_off_cpu_weight"] = n.total_off_weight;
    }
    out << (next ? ",\n " : "\n ") << j.dump();
    ++next;
    for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) stack.push_back(*it);
  }
  out << "\n],\n";
}

// Functions with samples, the largest total first.
void write_functions(const Profile& p, std::ostream& out) {
  out << "\"functions\": [";
  const auto totals = function_totals(p);
  std::vector<uint32_t> order(totals.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return totals[a].total > totals[b].total; });
  bool first = true;
  for (uint32_t f : order) {
    if (!totals[f].total) continue;
    json j{{"frame", f},
           {"self", totals[f].self},
           {"total", totals[f].total},
           {"self_weight", totals[f].self_weight},
           {"total_weight", totals[f].total_weight}};
    out << (first ? "\n " : ",\n ") << j.dump();
    first = false;
  }
  out << "\n]\n";
}

}  // namespace

void write_json_profile(const Profile& p, std::ostream& out) {
  out << "{\n\"format\": \"" << kJsonProfileFormat << "\",\n\"version\": " << kJsonProfileVersion << ",\n";
  out << "\"metadata\": " << dump_json(header_json(p)) << ",\n";
  out << "\"unwind\": " << unwind_json(p).dump() << ",\n";
  out << "\"threads\": " << dump_json(threads_json(p)) << ",\n";
  out << "\"warnings\": " << dump_json(json(p.warnings)) << ",\n";
  write_frames(p.tree, out);
  write_nodes(p.tree, p.weight_kind != WeightKind::kCpu, out);
  write_functions(p, out);
  out << "}\n";
}

}  // namespace swprof
