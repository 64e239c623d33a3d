// `swprof report --format speedscope`: https://www.speedscope.app/file-format-schema.json

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "output/json_fields.h"
#include "output/report.h"

namespace swprof {

ReportFormat parse_report_format(const std::string& name) {
  if (name == "text") return ReportFormat::kText;
  if (name == "folded") return ReportFormat::kFolded;
  if (name == "json") return ReportFormat::kJson;
  if (name == "speedscope") return ReportFormat::kSpeedscope;
  throw Error("unknown format '" + name + "': use text, folded, json or speedscope");
}

void write_speedscope(const Profile& profile, std::ostream& out) {
  using nlohmann::json;
  const CallTree& tree = profile.tree;
  const bool nanoseconds = profile.weight_unit == "nanoseconds";

  json frames = json::array();
  for (const CctFrame& f : tree.frames()) {
    json j{{"name", f.function + frame_marks(f)}, {"file", f.file.empty() ? f.module : f.file}};
    if (f.line) j["line"] = f.line;
    frames.push_back(std::move(j));
  }

  // One sampled profile per thread root; without thread roots, one for all.
  std::vector<std::pair<std::string, uint32_t>> roots;  // name, node (kRoot: whole tree)
  const auto& top = tree.node(CallTree::kRoot).children;
  const bool per_thread =
      !top.empty() && std::all_of(top.begin(), top.end(), [&](uint32_t n) {
        return tree.frame(tree.node(n).frame).flags & kCctThread;
      });
  if (per_thread)
    for (uint32_t n : top) roots.emplace_back(tree.frame(tree.node(n).frame).function, n);
  else
    roots.emplace_back(profile.header.command.empty() ? "all" : profile.header.command[0], CallTree::kRoot);

  json profiles = json::array();
  for (const auto& [name, root] : roots) {
    json samples = json::array();
    json weights = json::array();
    uint64_t end = 0;
    // Every distinct stack under `root` with its self samples.
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
    profiles.push_back({{"type", "sampled"},
                        {"name", name},
                        {"unit", nanoseconds ? "nanoseconds" : "none"},
                        {"startValue", 0},
                        {"endValue", end},
                        {"samples", std::move(samples)},
                        {"weights", std::move(weights)}});
  }
  std::string title = profile.header.command.empty() ? profile.source : profile.header.command[0];
  json doc{{"$schema", "https://www.speedscope.app/file-format-schema.json"},
           {"shared", {{"frames", std::move(frames)}}},
           {"profiles", std::move(profiles)},
           {"name", "swprof: " + title},
           {"activeProfileIndex", 0},
           {"exporter", std::string("swprof ") + SWPROF_VERSION}};
  out << dump_json(doc) << '\n';
}

}  // namespace swprof
