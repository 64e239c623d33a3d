// Reading a profile written by `swprof report --format json` back
// (docs/json-format.md), one function per section of the document.

#include "output/json_profile_reader.h"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <vector>

#include "common/error.h"
#include "common/json_read.h"
#include "output/json_fields.h"
#include "output/json_profile_writer.h"
#include "output/report_format.h"

namespace swprof {
namespace {

using nlohmann::json;

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

json parse_document(std::istream& in, const std::string& path) {
  try {
    return parse_json_limited(in);
  } catch (const json::exception& e) {
    throw Error("'" + path + "' is not valid JSON: " + e.what());
  } catch (const Error& e) {
    throw Error("'" + path + "' is not valid JSON: " + e.what());
  }
}

void check_format(const json& doc) {
  if (!doc.is_object() || doc.value("format", "") != kJsonProfileFormat)
    throw Error("not a swprof JSON profile (no \"format\": \"" + std::string(kJsonProfileFormat) + "\")");
  const uint32_t version = field<uint32_t>(doc, "version");
  if (version != kJsonProfileVersion)
    throw Error("JSON profile version " + std::to_string(version) + " is not supported (this swprof reads version " +
                std::to_string(kJsonProfileVersion) + ")");
}

void read_metadata(const json& m, const std::string& path, Profile& p) {
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
  p.weight_kind = parse_weight_kind(m.value("weight_kind", "cpu"));  // absent before off-CPU profiles: cpu
  p.reversed = m.value("reversed", false);
  // At most ~584 years, so that the nanoseconds fit in 64 bits.
  const double duration = json_number_or(m, "duration_seconds", 0.0);
  if (duration > 1.8e10) throw Error("field duration_seconds: expected at most 1.8e10 seconds, got " + std::to_string(duration));
  p.first_time = 0;
  p.last_time = static_cast<uint64_t>(std::max(0.0, duration) * 1e9);
}

// Names this swprof does not know (a newer stepper or walk end) are skipped.
void read_frames_by_stepper(const json& by_stepper, UnwindStats& u) {
  for (const auto& [name, n] : by_stepper.items())
    for (size_t k = 1; k < u.frames_by_stepper.size(); ++k)
      if (name == stepper_name(static_cast<StepperKind>(k)))
        u.frames_by_stepper[k] = json_number<uint64_t>(n, "unwind.frames_by_stepper." + name);
}

void read_walk_ends(const json& ends, UnwindStats& u) {
  for (const auto& [name, n] : ends.items())
    for (int e = 0; e <= static_cast<int>(WalkEnd::kNoMappingsYet); ++e)
      if (name == walk_end_name(static_cast<WalkEnd>(e)))
        u.ends[static_cast<WalkEnd>(e)] = json_number<uint64_t>(n, "unwind.walk_ends." + name);
}

void read_unwind(const json& u, Profile& p) {
  p.unwinder = u.value("unwinder", "chain") == "libunwind" ? UnwinderChoice::kLibunwind : UnwinderChoice::kChain;
  p.unwind.samples = json_number_or(u, "samples", uint64_t{0});
  p.unwind.complete = json_number_or(u, "complete", uint64_t{0});
  p.unwind.frames = json_number_or(u, "frames", uint64_t{0});
  p.unwind.guessed_frames = json_number_or(u, "guessed_frames", uint64_t{0});
  read_frames_by_stepper(u.value("frames_by_stepper", json::object()), p.unwind);
  read_walk_ends(u.value("walk_ends", json::object()), p.unwind);
}

void read_threads(const json& threads, Profile& p) {
  for (const auto& t : threads) {
    ProfileThread& th = p.threads[field<uint32_t>(t, "tid")];
    th.pid = json_number_or(t, "pid", uint32_t{0});
    th.comm = t.value("comm", "");
    th.samples = json_number_or(t, "samples", uint64_t{0});
  }
}

// The tree's frame id of every frame of the file, by index.
std::vector<uint32_t> read_frames(const json& frames, CallTree& tree) {
  std::vector<uint32_t> frame_ids;
  for (const auto& f : frames) {
    CctFrame frame;
    frame.function = field<std::string>(f, "name");
    frame.module = field<std::string>(f, "module");
    frame.file = f.value("file", "");
    frame.line = json_number_or(f, "line", decltype(frame.line){0});
    frame.flags = frame_flags_from_json(f.value("flags", json::array()));
    frame_ids.push_back(tree.intern(frame));
  }
  return frame_ids;
}

// The tree node of node `i` of the file: the root for the first, else a new
// child of its parent, which must come before it.
uint32_t node_of(const json& n, size_t i, const std::vector<uint32_t>& frame_ids, CallTree& tree) {
  const int64_t parent = field<int64_t>(n, "parent");
  const int64_t frame = field<int64_t>(n, "frame");
  if (i == 0) {
    if (parent != -1) throw Error("node 0 is not the root");
    return CallTree::kRoot;
  }
  if (parent < 0 || static_cast<size_t>(parent) >= i)
    throw Error("node " + std::to_string(i) + " has parent " + std::to_string(parent) + ", which does not come before it");
  if (frame < 0 || static_cast<size_t>(frame) >= frame_ids.size())
    throw Error("node " + std::to_string(i) + " names frame " + std::to_string(frame) + ", which does not exist");
  return tree.child(static_cast<uint32_t>(parent), frame_ids[static_cast<size_t>(frame)]);
}

// Adds node `i` of the file with its self counts; returns the total the file
// gives it, checked once every self count is in.
uint64_t read_node(const json& n, size_t i, const std::vector<uint32_t>& frame_ids, CallTree& tree) {
  const uint32_t id = node_of(n, i, frame_ids, tree);
  // Node ids are file indices: the tree numbers new nodes in the order they come.
  if (id != i) throw Error("node " + std::to_string(i) + " repeats an earlier node");
  if (format_context_id(tree.node(id).context_id) != field<std::string>(n, "id"))
    throw Error("node " + std::to_string(i) + " has context id " + field<std::string>(n, "id") +
                " but its stack gives " + format_context_id(tree.node(id).context_id));
  const uint64_t self = field<uint64_t>(n, "self");
  const uint64_t self_weight = json_number_or(n, "self_weight", uint64_t{0});
  const uint64_t self_off = json_number_or(n, "self_off_cpu_weight", uint64_t{0});
  if (self_off > self_weight)
    throw Error("node " + std::to_string(i) + " has more off-CPU weight than weight");
  if (self || self_weight) tree.add_self(id, self, self_weight, self_off);
  const uint64_t total = field<uint64_t>(n, "total");
  static_cast<void>(json_number_or(n, "total_weight", uint64_t{0}));  // must be a count when present (sum not checked)
  static_cast<void>(json_number_or(n, "total_off_cpu_weight", uint64_t{0}));
  return total;
}

void read_nodes(const json& nodes, const std::vector<uint32_t>& frame_ids, CallTree& tree) {
  if (!nodes.is_array() || nodes.empty()) throw Error("no nodes");
  std::vector<uint64_t> expected_total;
  expected_total.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) expected_total.push_back(read_node(nodes[i], i, frame_ids, tree));
  for (uint32_t i = 0; i < expected_total.size(); ++i)
    if (tree.node(i).total != expected_total[i])
      throw Error("node " + std::to_string(i) + " total " + std::to_string(expected_total[i]) +
                  " is not its self samples plus its children's totals");
}

void read_sections(const json& doc, const std::string& path, Profile& p) {
  check_format(doc);
  read_metadata(doc.at("metadata"), path, p);
  if (auto u = doc.find("unwind"); u != doc.end()) read_unwind(*u, p);
  read_threads(doc.value("threads", json::array()), p);
  p.warnings = doc.value("warnings", std::vector<std::string>{});
  const std::vector<uint32_t> frame_ids = read_frames(doc.at("frames"), p.tree);
  read_nodes(doc.at("nodes"), frame_ids, p.tree);
}

}  // namespace

Profile read_json_profile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open '" + path + "': " + errno_text(errno));
  return read_json_profile(in, path);
}

Profile read_json_profile(std::istream& in, const std::string& path) {
  const json doc = parse_document(in, path);
  Profile p;
  try {
    read_sections(doc, path, p);
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
