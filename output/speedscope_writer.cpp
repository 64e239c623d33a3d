// `swprof report --format speedscope`: https://www.speedscope.app/file-format-schema.json

#include "output/speedscope_writer.h"

#include <algorithm>
#include <nlohmann/json.hpp>
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

}  // namespace

void write_speedscope(const Profile& profile, std::ostream& out) {
  const bool nanoseconds = profile.weight_unit == "nanoseconds";
  json profiles = json::array();
  for (const auto& [name, root] : profile_roots(profile))
    profiles.push_back(sampled_profile(profile.tree, name, root, nanoseconds));
  std::string title = profile.header.command.empty() ? profile.source : profile.header.command[0];
  json doc{{"$schema", "https://www.speedscope.app/file-format-schema.json"},
           {"shared", {{"frames", frames_json(profile.tree)}}},
           {"profiles", std::move(profiles)},
           {"name", "swprof: " + title},
           {"activeProfileIndex", 0},
           {"exporter", std::string("swprof ") + SWPROF_VERSION}};
  out << dump_json(doc) << '\n';
}

}  // namespace swprof
