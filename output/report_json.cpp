// `swprof report --format json` and reading such a profile back
// (docs/json-format.md).

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <type_traits>

#include "common/error.h"
#include "common/json_read.h"
#include "output/json_fields.h"
#include "output/report.h"

namespace swprof {
namespace {

using nlohmann::json;

constexpr const char* kFormatName = "swprof-profile";

uint8_t flags_from_json(const json& j) {
  uint8_t flags = 0;
  for (const auto& f : j) {
    const std::string s = f.get<std::string>();
    if (s == "inline") flags |= kCctInline;
    else if (s == "guess") flags |= kCctGuess;
    else if (s == "kernel") flags |= kCctKernel;
    else if (s == "thread") flags |= kCctThread;
    else throw Error("unknown frame flag '" + s + "'");
  }
  return flags;
}

json header_json(const Profile& p) {
  const RecordingHeader& h = p.header;
  return json{{"source", p.source},
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

const json& required(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end()) throw Error(std::string("missing field '") + name + "'");
  return *it;
}

template <typename T>
T field(const json& j, const char* name) {
  if constexpr (std::is_arithmetic_v<T>) return json_number<T>(required(j, name), name);
  else return required(j, name).get<T>();
}

}  // namespace

std::string format_context_id(uint64_t id) {
  char buf[20];
  snprintf(buf, sizeof buf, "%016" PRIx64, id);
  return buf;
}

void write_json_profile(const Profile& p, std::ostream& out) {
  const CallTree& tree = p.tree;
  out << "{\n\"format\": \"" << kFormatName << "\",\n\"version\": " << kJsonProfileVersion << ",\n";
  out << "\"metadata\": " << dump_json(header_json(p)) << ",\n";
  out << "\"unwind\": " << unwind_json(p).dump() << ",\n";
  json threads = json::array();
  for (const auto& [tid, t] : p.threads)
    threads.push_back({{"tid", tid}, {"pid", t.pid}, {"comm", t.comm}, {"samples", t.samples}});
  out << "\"threads\": " << dump_json(threads) << ",\n";
  out << "\"warnings\": " << dump_json(json(p.warnings)) << ",\n";

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

  // Nodes in depth-first order: a node's parent always comes before it, and
  // its position in this array is its index.
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
    out << (next ? ",\n " : "\n ") << j.dump();
    ++next;
    for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) stack.push_back(*it);
  }
  out << "\n],\n";

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
  out << "\n]\n}\n";
}

Profile read_json_profile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open '" + path + "': " + errno_text(errno));
  return read_json_profile(in, path);
}

Profile read_json_profile(std::istream& in, const std::string& path) {
  json doc;
  try {
    doc = parse_json_limited(in);
  } catch (const json::exception& e) {
    throw Error("'" + path + "' is not valid JSON: " + e.what());
  } catch (const Error& e) {
    throw Error("'" + path + "' is not valid JSON: " + e.what());
  }
  Profile p;
  try {
    if (!doc.is_object() || doc.value("format", "") != kFormatName)
      throw Error("not a swprof JSON profile (no \"format\": \"" + std::string(kFormatName) + "\")");
    const uint32_t version = field<uint32_t>(doc, "version");
    if (version != kJsonProfileVersion)
      throw Error("JSON profile version " + std::to_string(version) + " is not supported (this swprof reads version " +
                  std::to_string(kJsonProfileVersion) + ")");
    const json& m = doc.at("metadata");
    // The recording the profile was made from names it, wherever the JSON file is now.
    p.source = m.value("source", path);
    p.header.mode = m.value("mode", "");
    p.header.command = m.value("command", std::vector<std::string>{});
    p.header.target_pid = json_number_or(m, "target_pid", int64_t{0});
    p.header.event = m.value("event", "");
    p.header.frequency = json_number_or(m, "frequency", uint32_t{0});
    p.header.period = json_number_or(m, "period", uint64_t{0});
    p.header.host = m.value("host", "");
    p.header.kernel_release = m.value("kernel_release", "");
    p.header.start_unix_ns = json_number_or(m, "start_unix_ns", uint64_t{0});
    p.samples_read = json_number_or(m, "samples_read", uint64_t{0});
    p.lost = json_number_or(m, "lost", uint64_t{0});
    p.weight_unit = m.value("weight_unit", "events");
    p.reversed = m.value("reversed", false);
    // At most ~584 years, so that the nanoseconds fit in 64 bits.
    const double duration = json_number_or(m, "duration_seconds", 0.0);
    if (duration > 1.8e10) throw Error("field duration_seconds: expected at most 1.8e10 seconds, got " + std::to_string(duration));
    p.first_time = 0;
    p.last_time = static_cast<uint64_t>(std::max(0.0, duration) * 1e9);
    if (auto u = doc.find("unwind"); u != doc.end()) {
      p.unwinder = u->value("unwinder", "chain") == "libunwind" ? UnwinderChoice::kLibunwind : UnwinderChoice::kChain;
      p.unwind.samples = json_number_or(*u, "samples", uint64_t{0});
      p.unwind.complete = json_number_or(*u, "complete", uint64_t{0});
      p.unwind.frames = json_number_or(*u, "frames", uint64_t{0});
      p.unwind.guessed_frames = json_number_or(*u, "guessed_frames", uint64_t{0});
      const json by_stepper = u->value("frames_by_stepper", json::object());
      const json ends = u->value("walk_ends", json::object());
      for (const auto& [name, n] : by_stepper.items())
        for (size_t k = 1; k < p.unwind.frames_by_stepper.size(); ++k)
          if (name == stepper_name(static_cast<StepperKind>(k)))
            p.unwind.frames_by_stepper[k] = json_number<uint64_t>(n, "unwind.frames_by_stepper." + name);
      for (const auto& [name, n] : ends.items())
        for (int e = 0; e <= static_cast<int>(WalkEnd::kNoMappingsYet); ++e)
          if (name == walk_end_name(static_cast<WalkEnd>(e)))
            p.unwind.ends[static_cast<WalkEnd>(e)] = json_number<uint64_t>(n, "unwind.walk_ends." + name);
    }
    for (const auto& t : doc.value("threads", json::array())) {
      ProfileThread& th = p.threads[field<uint32_t>(t, "tid")];
      th.pid = json_number_or(t, "pid", uint32_t{0});
      th.comm = t.value("comm", "");
      th.samples = json_number_or(t, "samples", uint64_t{0});
    }
    p.warnings = doc.value("warnings", std::vector<std::string>{});

    std::vector<uint32_t> frame_ids;
    for (const auto& f : doc.at("frames")) {
      CctFrame frame;
      frame.function = field<std::string>(f, "name");
      frame.module = field<std::string>(f, "module");
      frame.file = f.value("file", "");
      frame.line = json_number_or(f, "line", decltype(frame.line){0});
      frame.flags = flags_from_json(f.value("flags", json::array()));
      frame_ids.push_back(p.tree.intern(frame));
    }
    const json& nodes = doc.at("nodes");
    if (!nodes.is_array() || nodes.empty()) throw Error("no nodes");
    std::vector<uint64_t> expected_total;  // checked once every self count is in
    for (size_t i = 0; i < nodes.size(); ++i) {
      const json& n = nodes[i];
      const int64_t parent = field<int64_t>(n, "parent");
      const int64_t frame = field<int64_t>(n, "frame");
      uint32_t id = CallTree::kRoot;
      if (i == 0) {
        if (parent != -1) throw Error("node 0 is not the root");
      } else {
        if (parent < 0 || static_cast<size_t>(parent) >= i)
          throw Error("node " + std::to_string(i) + " has parent " + std::to_string(parent) + ", which does not come before it");
        if (frame < 0 || static_cast<size_t>(frame) >= frame_ids.size())
          throw Error("node " + std::to_string(i) + " names frame " + std::to_string(frame) + ", which does not exist");
        // Node ids are file indices: the tree numbers new nodes in the order they come.
        id = p.tree.child(static_cast<uint32_t>(parent), frame_ids[static_cast<size_t>(frame)]);
      }
      if (id != i) throw Error("node " + std::to_string(i) + " repeats an earlier node");
      if (format_context_id(p.tree.node(id).context_id) != field<std::string>(n, "id"))
        throw Error("node " + std::to_string(i) + " has context id " + field<std::string>(n, "id") +
                    " but its stack gives " + format_context_id(p.tree.node(id).context_id));
      const uint64_t self = field<uint64_t>(n, "self");
      const uint64_t self_weight = json_number_or(n, "self_weight", uint64_t{0});
      if (self || self_weight) p.tree.add_self(id, self, self_weight);
      expected_total.push_back(field<uint64_t>(n, "total"));
      static_cast<void>(json_number_or(n, "total_weight", uint64_t{0}));  // must be a count when present (sum not checked)
    }
    for (uint32_t i = 0; i < expected_total.size(); ++i)
      if (p.tree.node(i).total != expected_total[i])
        throw Error("node " + std::to_string(i) + " total " + std::to_string(expected_total[i]) +
                    " is not its self samples plus its children's totals");
  } catch (const json::exception& e) {
    throw Error("'" + path + "' is not a valid swprof JSON profile: " + e.what());
  } catch (const Error& e) {
    throw Error("'" + path + "' is not a valid swprof JSON profile: " + e.what());
  }
  p.samples_kept = p.tree.total();
  p.tree.sort_children();
  return p;
}

}  // namespace swprof
