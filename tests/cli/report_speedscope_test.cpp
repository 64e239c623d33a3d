// `swprof report -f speedscope` on a recording keeps time order: a program
// alternating fa and fb (tests/programs/known_alternating.c) shows
// alternating samples in each thread's profile, weighing what the
// aggregated reports weigh.

#include <catch2/catch.hpp>
#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_harness.h"
#include "support/temp_dir.h"

using namespace swprof::testing;
using nlohmann::json;

namespace {

// 200 rounds of fa then fb, about 1.5 ms of work each: 6 samples a turn at 4 kHz.
struct AlternatingRecording {
  TempDir dir;
  std::string path = dir.file("alternating.swprof");
  AlternatingRecording() {
    auto r = run({swprof_bin(), "record", "-F", "4000", "-o", path, "--", KNOWN_ALTERNATING_BIN, "200"}, dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  // Writes `swprof report` of the recording with `args` to `name` in the
  // folder; returns its path.
  std::string write(std::vector<std::string> args, const std::string& name) const {
    const std::string out = dir.file(name);
    std::vector<std::string> argv{swprof_bin(), "report", path, "-o", out};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run(argv, dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return out;
  }
  json report(std::vector<std::string> args) const {
    std::ifstream in(write(std::move(args), "report.json"));
    return json::parse(in);
  }
};

const AlternatingRecording& recording() {
  static const AlternatingRecording r;
  return r;
}

const std::string& frame_name(const json& doc, const json& index) {
  return doc["shared"]["frames"][index.get<size_t>()]["name"].get_ref<const std::string&>();
}

// The profile of the thread that ran fa and fb.
const json& alternating_thread(const json& doc) {
  for (const auto& p : doc["profiles"])
    for (const auto& s : p["samples"])
      for (const auto& f : s)
        if (frame_name(doc, f) == "fa") return p;
  FAIL("no profile has fa");
  return doc;
}

// How many times the sample's fa/fb changes, going through the samples in
// order (samples in neither are skipped); `at` picks the frame to look at.
template <typename At>
int alternations(const json& doc, const json& profile, At at) {
  int changes = 0;
  std::string last;
  for (const auto& s : profile["samples"]) {
    const std::string& name = frame_name(doc, at(s));
    if (name != "fa" && name != "fb") continue;
    if (!last.empty() && name != last) ++changes;
    last = name;
  }
  return changes;
}

// A sample's frame names, in the order the file gives them.
std::vector<std::string> frame_names(const json& doc, const json& sample) {
  std::vector<std::string> out;
  for (const auto& f : sample) out.push_back(frame_name(doc, f));
  return out;
}

}  // namespace

TEST_CASE("report speedscope: a thread's samples in time order alternate fa and fb, weighing the report's totals") {
  const json doc = recording().report({"-f", "speedscope"});
  const json& p = alternating_thread(doc);
  CHECK(p["type"] == "sampled");
  CHECK(p["unit"] == "nanoseconds");
  const int changes = alternations(doc, p, [](const json& s) { return s.back(); });
  INFO("fa/fb alternations: " << changes << " in " << p["samples"].size() << " samples");
  CHECK(changes >= 100);  // 399 when every turn was sampled; aggregated stacks gave 1

  // Time moves forward: every sample weighs time, and the weights span
  // startValue to endValue.
  REQUIRE(p["samples"].size() == p["weights"].size());
  uint64_t sum = 0;
  std::map<std::string, uint64_t> by_leaf;
  for (size_t i = 0; i < p["weights"].size(); ++i) {
    const uint64_t w = p["weights"][i];
    CHECK(w > 0);
    sum += w;
    by_leaf[frame_name(doc, p["samples"][i].back())] += w;
  }
  CHECK(p["endValue"].get<uint64_t>() == p["startValue"].get<uint64_t>() + sum);
  CHECK(p["startValue"].get<uint64_t>() > 0);

  // The same weight per function as the aggregated report (one thread).
  const json agg = recording().report({"-f", "json"});
  std::map<std::string, uint64_t> self_weight;
  for (const auto& f : agg["functions"])
    if (f["self_weight"].get<uint64_t>()) self_weight[agg["frames"][f["frame"].get<size_t>()]["name"]] += f["self_weight"].get<uint64_t>();
  REQUIRE(self_weight.count("fa"));
  CHECK(by_leaf["fa"] == self_weight["fa"]);
  CHECK(by_leaf["fb"] == self_weight["fb"]);
  uint64_t all = 0;
  for (const auto& q : doc["profiles"])
    for (const auto& w : q["weights"]) all += w.get<uint64_t>();
  CHECK(all == agg["nodes"][0]["total_weight"].get<uint64_t>());
}

TEST_CASE("report speedscope --reverse: leaf-first stacks, still in time order") {
  const json doc = recording().report({"-f", "speedscope", "--reverse"});
  const json forward = recording().report({"-f", "speedscope"});
  const json& p = alternating_thread(doc);
  const json& q = alternating_thread(forward);
  // Sample for sample, the same stack leaf first and the same weight. (A
  // leaf may be main itself: a timer tick landing just after fa returns.)
  REQUIRE(p["samples"].size() == q["samples"].size());
  CHECK(p["weights"] == q["weights"]);
  for (size_t i = 0; i < p["samples"].size(); ++i) {
    std::vector<std::string> root_first = frame_names(forward, q["samples"][i]);
    std::reverse(root_first.begin(), root_first.end());
    CHECK(frame_names(doc, p["samples"][i]) == root_first);
  }
  CHECK(alternations(doc, p, [](const json& s) { return s.front(); }) >= 100);
}

TEST_CASE("report speedscope --thread-names: one profile per name, still in time order") {
  const json doc = recording().report({"-f", "speedscope", "--thread-names"});
  const json& p = alternating_thread(doc);
  CHECK(p["name"] == "known_alternati");  // the 15 bytes of a thread name
  CHECK(alternations(doc, p, [](const json& s) { return s.back(); }) >= 100);
}

TEST_CASE("report speedscope: the time-ordered file follows the speedscope app's schema") {
  const std::string schema = std::string(SPEEDSCOPE_APP_DIR) + "/file-format-schema.json";
  INFO("the speedscope app: run scripts/setup.sh (or scripts/setup_speedscope.sh)");
  REQUIRE(std::ifstream(schema).good());
  const std::string file = recording().write({"-f", "speedscope"}, "schema.speedscope.json");
  auto check = run({"/usr/bin/env", "python3", SCHEMA_CHECKER, schema, file}, recording().dir.path());
  INFO(check.out << check.err);
  CHECK(check.exit_code == 0);
}
