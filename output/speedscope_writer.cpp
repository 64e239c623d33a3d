// `swprof report --format speedscope`: https://www.speedscope.app/file-format-schema.json

#include "output/speedscope_writer.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "output/json_fields.h"

namespace swprof {
namespace {

using nlohmann::json;

// The shared frame table; samples name frames by their index in it, which
// is their index in the tree.
json frames_json(const CallTree& tree) {
  json frames = json::array();
  for (const CctFrame& f : tree.frames()) {
    json j{{"name", f.function + frame_marks(f)}, {"file", f.file.empty() ? f.module : f.file}};
    if (f.line) j["line"] = f.line;
    frames.push_back(std::move(j));
  }
  return frames;
}

// One sampled profile per thread root; without thread roots, one for all.
// Each is (name, node), where node kRoot means the whole tree.
std::vector<std::pair<std::string, uint32_t>> profile_roots(const Profile& profile) {
  const CallTree& tree = profile.tree;
  std::vector<std::pair<std::string, uint32_t>> roots;
  const auto& top = tree.node(CallTree::kRoot).children;
  const bool per_thread =
      !top.empty() && std::all_of(top.begin(), top.end(), [&](uint32_t n) {
        return tree.frame(tree.node(n).frame).flags & kCctThread;
      });
  if (per_thread)
    for (uint32_t n : top) roots.emplace_back(tree.frame(tree.node(n).frame).function, n);
  else
    roots.emplace_back(profile.header.command.empty() ? "all" : profile.header.command[0], CallTree::kRoot);
  return roots;
}

// Every distinct stack under `root` with its self samples (or self
// nanoseconds), the frames below `root` only.
json sampled_profile(const CallTree& tree, const std::string& name, uint32_t root, bool nanoseconds) {
  json samples = json::array();
  json weights = json::array();
  uint64_t end = 0;
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> stack{{root, {}}};
  while (!stack.empty()) {
    auto [node, path] = std::move(stack.back());
    stack.pop_back();
    const CctNode& n = tree.node(node);
    if (node != root) path.push_back(n.frame);
    if (n.self && !path.empty()) {
      const uint64_t w = nanoseconds ? n.self_weight : n.self;
      samples.push_back(path);
      weights.push_back(w);
      end += w;
    }
    for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) stack.emplace_back(*it, path);
  }
  return json{{"type", "sampled"},
              {"name", name},
              {"unit", nanoseconds ? "nanoseconds" : "none"},
              {"startValue", 0},
              {"endValue", end},
              {"samples", std::move(samples)},
              {"weights", std::move(weights)}};
}

// ---- Time order: a profile with a timeline ----

constexpr uint32_t kNoProfile = UINT32_MAX;

// Consecutive samples of one stack in one profile, written as one sample
// (speedscope draws them as one block in every view).
struct TimedRun {
  uint32_t leaf = 0;
  uint64_t weight = 0;
};

struct TimedProfile {
  std::vector<TimedRun> runs;
  uint64_t start = 0;  // ns after the recording started, of the first sample
  uint64_t total = 0;  // sum of the weights
};

// The index in `roots` of the profile each node's samples belong to: its
// thread root's, or the only one.
std::vector<uint32_t> node_profiles(const CallTree& tree, const std::vector<std::pair<std::string, uint32_t>>& roots) {
  if (roots.size() == 1 && roots[0].second == CallTree::kRoot) return std::vector<uint32_t>(tree.nodes().size(), 0);
  std::vector<uint32_t> of(tree.nodes().size(), kNoProfile);
  for (uint32_t i = 0; i < roots.size(); ++i) of[roots[i].second] = i;
  // A parent's index is below its children's.
  for (uint32_t n = 1; n < of.size(); ++n)
    if (tree.node(n).parent != CallTree::kRoot) of[n] = of[tree.node(n).parent];
  return of;
}

std::vector<TimedProfile> timed_profiles(const Profile& profile,
                                         const std::vector<std::pair<std::string, uint32_t>>& roots,
                                         bool nanoseconds) {
  const std::vector<uint32_t> of = node_profiles(profile.tree, roots);
  const uint64_t started = profile.header.start_monotonic_ns;
  std::vector<TimedProfile> out(roots.size());
  for (const TimelineSample& s : profile.timeline) {
    const uint32_t i = of[s.node];
    if (i == kNoProfile || s.node == roots[i].second) continue;  // no frames below the profile's root
    TimedProfile& t = out[i];
    const uint64_t w = nanoseconds ? s.weight : 1;
    if (t.runs.empty()) t.start = nanoseconds && s.time > started ? s.time - started : 0;
    if (!t.runs.empty() && t.runs.back().leaf == s.node) t.runs.back().weight += w;
    else t.runs.push_back({s.node, w});
    t.total += w;
  }
  return out;
}

void append_number(std::string& out, uint64_t n) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, n).ptr);
}

// "[f0,f1,...]": the frames of `leaf`'s stack below `root`, root first.
void append_stack(const CallTree& tree, uint32_t leaf, uint32_t root, std::vector<uint32_t>& scratch,
                  std::string& out) {
  scratch.clear();
  for (uint32_t at = leaf; at != root; at = tree.node(at).parent) scratch.push_back(tree.node(at).frame);
  out += '[';
  for (auto it = scratch.rbegin(); it != scratch.rend(); ++it) {
    if (it != scratch.rbegin()) out += ',';
    append_number(out, *it);
  }
  out += ']';
}

// One sampled profile, streamed (a long recording has millions of samples);
// keys in the order nlohmann::json sorts them, as the aggregated form.
void write_timed_profile(const CallTree& tree, const std::string& name, uint32_t root, const TimedProfile& t,
                         bool nanoseconds, std::ostream& out) {
  std::string text = "{\"endValue\":";
  append_number(text, t.start + t.total);
  text += ",\"name\":" + dump_json(json(name)) + ",\"samples\":[";
  std::vector<uint32_t> scratch;
  for (size_t i = 0; i < t.runs.size(); ++i) {
    if (i) text += ',';
    append_stack(tree, t.runs[i].leaf, root, scratch, text);
    if (text.size() > (1u << 16)) {
      out << text;
      text.clear();
    }
  }
  text += "],\"startValue\":";
  append_number(text, t.start);
  text += std::string(",\"type\":\"sampled\",\"unit\":\"") + (nanoseconds ? "nanoseconds" : "none") + "\",\"weights\":[";
  for (size_t i = 0; i < t.runs.size(); ++i) {
    if (i) text += ',';
    append_number(text, t.runs[i].weight);
  }
  out << text << "]}";
}

// The document of write_speedscope with the given profiles, keys sorted.
void write_timed_document(const Profile& profile, const std::string& title, bool nanoseconds, std::ostream& out) {
  const auto roots = profile_roots(profile);
  const std::vector<TimedProfile> timed = timed_profiles(profile, roots, nanoseconds);
  out << "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"activeProfileIndex\":0,\"exporter\":"
      << dump_json(json(std::string("swprof ") + SWPROF_VERSION)) << ",\"name\":" << dump_json(json("swprof: " + title))
      << ",\"profiles\":[";
  for (size_t i = 0; i < roots.size(); ++i) {
    if (i) out << ',';
    write_timed_profile(profile.tree, roots[i].first, roots[i].second, timed[i], nanoseconds, out);
  }
  out << "],\"shared\":" << dump_json(json{{"frames", frames_json(profile.tree)}}) << "}\n";
}

}  // namespace

void write_speedscope(const Profile& profile, std::ostream& out) {
  const bool nanoseconds = profile.weight_unit == "nanoseconds";
  std::string title = profile.header.command.empty() ? profile.source : profile.header.command[0];
  if (!profile.timeline.empty()) {
    write_timed_document(profile, title, nanoseconds, out);
    return;
  }
  json profiles = json::array();
  for (const auto& [name, root] : profile_roots(profile))
    profiles.push_back(sampled_profile(profile.tree, name, root, nanoseconds));
  json doc{{"$schema", "https://www.speedscope.app/file-format-schema.json"},
           {"shared", {{"frames", frames_json(profile.tree)}}},
           {"profiles", std::move(profiles)},
           {"name", "swprof: " + title},
           {"activeProfileIndex", 0},
           {"exporter", std::string("swprof ") + SWPROF_VERSION}};
  out << dump_json(doc) << '\n';
}

}  // namespace swprof
