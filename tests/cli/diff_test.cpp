// `swprof diff`, `swprof merge` and `report --context-id` end to end: real
// recordings of tests/programs/diff_target.c, golden outputs on fixed JSON
// profiles (tests/golden/diff/), and bad input.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "support/cli_harness.h"
#include "support/temp_dir.h"

using namespace swprof::testing;
using nlohmann::json;

namespace {

std::string target(const std::string& name) { return std::string(DIFF_TARGET_DIR) + "/" + name; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Recordings shared by the tests, made once: BASE runs of the benchmark, one
// NEW run with the knob that doubles hot_loop's work, and JSON profiles of
// each (as CI would keep them).
class Runs {
 public:
  static Runs& get() {
    static Runs runs;
    return runs;
  }
  const std::string& dir() const { return dir_.path(); }

  // The i-th BASE recording, as a JSON profile.
  std::string base(int i) {
    const std::string name = "base" + std::to_string(i);
    return json_of(name, {target("diff_target"), "bench"});
  }
  std::string base_recording(int i) {
    base(i);
    return dir_.file("base" + std::to_string(i) + ".swprof");
  }
  std::string doubled_recording() {
    json_of("doubled", {target("diff_target"), "bench", "--double-hot"});
    return dir_.file("doubled.swprof");
  }
  std::string doubled() { return json_of("doubled", {target("diff_target"), "bench", "--double-hot"}); }
  std::string json_of(const std::string& name, const std::vector<std::string>& command) {
    const std::string json_path = dir_.file(name + ".json");
    if (std::filesystem::exists(json_path)) return json_path;
    const std::string rec = dir_.file(name + ".swprof");
    std::vector<std::string> argv = {swprof_bin(), "record", "-F", "1999", "-o", rec, "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    auto r = run(argv, dir_.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto j = run({swprof_bin(), "report", rec, "-f", "json", "-o", json_path}, dir_.path());
    INFO(j.err);
    REQUIRE(j.exit_code == 0);
    return json_path;
  }

 private:
  TempDir dir_;
};

ProcessResult swprof_cli(std::vector<std::string> args, const std::string& dir = Runs::get().dir()) {
  args.insert(args.begin(), swprof_bin());
  return run(args, dir);
}

// Names of the functions whose `metric` is a regression / that fail the gate.
std::set<std::string> regressed(const json& diff, const std::string& metric) {
  std::set<std::string> out;
  for (const auto& f : diff["functions"])
    if (f[metric]["change"] == "regression") out.insert(f["name"].get<std::string>());
  return out;
}

std::set<std::string> failing(const json& diff) {
  std::set<std::string> out;
  for (const auto& f : diff["functions"])
    if (f["fails_gate"] == true) out.insert(f["name"].get<std::string>());
  return out;
}

// Context id by folded stack ("main;compute;hot_loop") of a JSON profile.
std::map<std::string, std::string> ids_by_stack(const std::string& profile_path) {
  const json doc = json::parse(slurp(profile_path));
  std::vector<std::string> stacks;
  std::map<std::string, std::string> out;
  for (const auto& n : doc["nodes"]) {
    const int64_t parent = n["parent"];
    std::string stack;
    if (parent >= 0) {
      const std::string& up = stacks[static_cast<size_t>(parent)];
      stack = (up.empty() ? "" : up + ";") + doc["frames"][n["frame"].get<size_t>()]["name"].get<std::string>();
    }
    stacks.push_back(stack);
    out[stack] = n["id"];
  }
  return out;
}

// The id of the context whose stack ends with `suffix`.
std::string id_ending(const std::map<std::string, std::string>& ids, const std::string& suffix) {
  for (const auto& [stack, id] : ids)
    if (stack.size() >= suffix.size() && stack.compare(stack.size() - suffix.size(), suffix.size(), suffix) == 0)
      return id;
  FAIL("no context ends with " << suffix);
  return "";
}

void one_line_error(const ProcessResult& r, const std::string& what) {
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(what) != std::string::npos);
  CHECK(line_count(r.err) == 1);
}

}  // namespace

TEST_CASE("diff: the doubled function is the regression by self, its caller by total, exit 1") {
  auto& runs = Runs::get();
  // Straight from the recordings.
  auto r = swprof_cli({"diff", runs.base_recording(0), runs.doubled_recording(), "-f", "json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 1);
  const json d = json::parse(r.out);
  CHECK(d["result"] == "regression");
  CHECK(regressed(d, "self") == std::set<std::string>{"hot_loop"});
  CHECK(regressed(d, "total") == std::set<std::string>{"compute", "hot_loop"});
  CHECK(failing(d) == std::set<std::string>{"compute", "hot_loop"});
  for (const auto& f : d["functions"])
    if (f["name"] == "hot_loop") {
      // 30% -> 46% of the samples by construction.
      CHECK(f["self"]["base_percent"].get<double>() == Approx(30).margin(4));
      CHECK(f["self"]["new_percent"].get<double>() == Approx(46).margin(4));
    }

  // --fail-on self names hot_loop alone; the text report says the same.
  auto self = swprof_cli({"diff", runs.base(0), runs.doubled(), "--fail-on", "self"});
  INFO(self.out);
  CHECK(self.exit_code == 1);
  CHECK(self.out.find("Result: REGRESSION: 1 function fails the gate: hot_loop\n") != std::string::npos);

  // The other way round hot_loop and compute improve, which never fails. (The
  // other functions' shares rise, and parse_input's significantly: shares
  // are relative, so --only judges just these two here.)
  auto back = swprof_cli({"diff", runs.doubled(), runs.base(0), "-f", "json", "--only", "^(hot_loop|compute)$"});
  CHECK(back.exit_code == 0);
  const json b = json::parse(back.out);
  CHECK(b["result"] == "ok");
  for (const auto& f : b["functions"]) {
    if (f["name"] == "hot_loop") CHECK(f["self"]["change"] == "improvement");
    if (f["name"] == "compute") CHECK(f["total"]["change"] == "improvement");
  }

  // --only limits what is judged.
  CHECK(swprof_cli({"diff", runs.base(0), runs.doubled(), "--only", "^steady"}).exit_code == 0);
}

TEST_CASE("diff: A/A, runs of the same program never fail the gate") {
  auto& runs = Runs::get();
  const std::vector<std::string> profiles = {runs.base(0), runs.base(1), runs.base(2)};
  int pairs = 0;
  for (size_t i = 0; i < profiles.size(); ++i)
    for (size_t j = 0; j < profiles.size(); ++j) {
      if (i == j) continue;
      auto r = swprof_cli({"diff", profiles[i], profiles[j], "-f", "json", "--fail-on", "both"});
      INFO(i << " -> " << j << "\n" << r.out << r.err);
      REQUIRE(r.exit_code == 0);
      const json d = json::parse(r.out);
      CHECK(d["failing"] == 0);
      CHECK(regressed(d, "self").empty());
      CHECK(regressed(d, "total").empty());
      ++pairs;
    }
  CHECK(pairs == 6);
}

TEST_CASE("diff: a busy machine's interrupts do not fail the gate") {
  // Real profiles of the same program on a quiet and a busy machine (see
  // tests/golden/diff/README.md): on the busy one 44% of the samples are in
  // the scheduler under reschedule interrupts.
  const std::string golden = std::string(GOLDEN_DIR) + "/diff";
  TempDir dir;
  for (const char* input : {"quiet-machine.json", "busy-machine.json"})
    std::filesystem::copy_file(golden + "/" + input, dir.file(input));
  for (const auto& [a, b] : {std::pair{"quiet-machine.json", "busy-machine.json"}, {"busy-machine.json", "quiet-machine.json"}}) {
    auto r = run({swprof_bin(), "diff", a, b, "-f", "json", "--fail-on", "both"}, dir.path());
    INFO(a << " -> " << b << "\n" << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const json d = json::parse(r.out);
    CHECK(d["failing"] == 0);
    REQUIRE(d["warnings"].size() == 1);
    CHECK(d["warnings"][0].get<std::string>().find("taken in interrupt handlers") != std::string::npos);
    CHECK(r.err.find("--keep-interrupts judges them") != std::string::npos);
    // Judged as kernel functions, the scheduler's share fails the gate one
    // way, and the user functions' self shares the other.
    auto kept = run({swprof_bin(), "diff", a, b, "-f", "json", "--fail-on", "both", "--keep-interrupts"}, dir.path());
    CHECK(kept.exit_code == 1);
    CHECK(json::parse(kept.out)["warnings"].empty());
  }
}

TEST_CASE("diff outputs: markdown for a pull request, difffolded lines, a differential flame graph") {
  auto& runs = Runs::get();
  TempDir dir;
  const std::string md = dir.file("diff.md"), folded = dir.file("diff.folded"), html = dir.file("diff.html");
  auto r = swprof_cli({"diff", runs.base(0), runs.doubled(), "-f", "markdown", "-o", md, "--folded", folded, "--html", html});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  const std::string text = slurp(md);
  CHECK(text.rfind("**swprof diff: performance regression.** 2 functions fail the gate: ", 0) == 0);
  CHECK(text.find("| fails | `hot_loop` |") != std::string::npos);
  CHECK(text.find("#### Improvements") != std::string::npos);

  // Column sums are each side's samples.
  const json base = json::parse(slurp(runs.base(0)));
  const json next = json::parse(slurp(runs.doubled()));
  std::istringstream lines(slurp(folded));
  std::string line;
  uint64_t base_sum = 0, new_sum = 0, lines_read = 0;
  while (std::getline(lines, line)) {
    std::istringstream fields(line.substr(line.rfind(' ', line.rfind(' ') - 1)));
    uint64_t a = 0, b = 0;
    fields >> a >> b;
    base_sum += a;
    new_sum += b;
    ++lines_read;
  }
  CHECK(lines_read > 3);
  CHECK(base_sum == base["metadata"]["samples"].get<uint64_t>());
  CHECK(new_sum == next["metadata"]["samples"].get<uint64_t>());

  // The page carries BASE's total for the contexts of NEW.
  const std::string page = slurp(html);
  CHECK(page.find("id=\"swprof-data\"") != std::string::npos);
  CHECK(page.find("\"baseTotal\":" + std::to_string(base["metadata"]["samples"].get<uint64_t>())) != std::string::npos);
  CHECK(page.find("swprof diff: ") != std::string::npos);
}

TEST_CASE("context ids: equal across builds that differ by a line and addresses, different for other paths") {
  auto& runs = Runs::get();
  const std::string plain = runs.base(0);
  const std::string shifted = runs.json_of("shifted", {target("shifted/diff_target"), "bench"});
  // The builds really differ: hot_loop's line and its address in the binary.
  auto line_of = [](const std::string& path, const std::string& name) {
    const json doc = json::parse(slurp(path));
    for (const auto& f : doc["frames"])
      if (f["name"] == name) return f.value("line", 0);
    return -1;
  };
  CHECK(line_of(shifted, "hot_loop") == line_of(plain, "hot_loop") + 1);
  auto nm_address = [](const std::string& bin) {
    TempDir work;
    auto r = run({"/bin/sh", "-c", "nm " + bin + " | grep ' T hot_loop$'"}, work.path());
    return r.out;
  };
  CHECK(nm_address(target("diff_target")) != nm_address(target("shifted/diff_target")));

  const auto a = ids_by_stack(plain), b = ids_by_stack(shifted);
  for (const char* path : {"main;compute;hot_loop", "main;compute;steady_loop", "main;parse_input", "main;compute"}) {
    INFO(path);
    CHECK(id_ending(a, path) == id_ending(b, path));
  }
  // And so the diff finds nothing.
  CHECK(swprof_cli({"diff", plain, shifted}).exit_code == 0);

  // a -> b -> c and b -> c -> a: the same functions, different contexts.
  const std::string paths = runs.json_of("paths", {target("diff_target"), "paths"});
  const auto p = ids_by_stack(paths);
  const std::string abc = id_ending(p, "main;step_a;step_b;step_c");
  const std::string bca = id_ending(p, "main;step_b;step_c;step_a");
  CHECK(abc != bca);
  CHECK(id_ending(p, "main;step_a;step_b;step_c;spin") != id_ending(p, "main;step_b;step_c;step_a;spin"));

  // report --context-id decodes an id with a profile or a recording.
  for (const std::string& input : {paths, Runs::get().dir() + "/paths.swprof"}) {
    auto r = swprof_cli({"report", input, "--context-id", bca});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto a_at = r.out.find("  step_a  [diff_target]"), b_at = r.out.find("  step_b  [diff_target]"),
               c_at = r.out.find("  step_c  [diff_target]");
    CHECK(r.out.rfind("context " + bca + " in ", 0) == 0);
    CHECK(b_at < c_at);
    CHECK(c_at < a_at);
    CHECK(a_at != std::string::npos);
  }
  one_line_error(swprof_cli({"report", paths, "--context-id", "0123456789abcdef"}), "is not in");
  one_line_error(swprof_cli({"report", paths, "--context-id", "xyz"}), "invalid context id");
}

TEST_CASE("merge: samples of every context sum exactly, merged profiles diff like any other") {
  auto& runs = Runs::get();
  TempDir dir;
  const std::string merged = dir.file("merged.json");
  // A recording and two JSON profiles.
  auto r = swprof_cli({"merge", runs.base_recording(0), runs.base(1), runs.base(2), "-o", merged});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json m = json::parse(slurp(merged));
  auto totals = [](const json& doc) {
    std::map<std::string, std::pair<uint64_t, uint64_t>> by_id;  // id -> (self, total)
    for (const auto& n : doc["nodes"]) {
      auto& c = by_id[n["id"].get<std::string>()];
      c.first += n["self"].get<uint64_t>();
      c.second += n["total"].get<uint64_t>();
    }
    return by_id;
  };
  std::map<std::string, std::pair<uint64_t, uint64_t>> expected;
  uint64_t samples = 0;
  double seconds = 0;
  for (int i = 0; i < 3; ++i) {
    const json doc = json::parse(slurp(runs.base(i)));
    samples += doc["metadata"]["samples"].get<uint64_t>();
    seconds += doc["metadata"]["duration_seconds"].get<double>();
    for (const auto& [id, c] : totals(doc)) {
      expected[id].first += c.first;
      expected[id].second += c.second;
    }
  }
  CHECK(totals(m) == expected);
  CHECK(m["metadata"]["samples"] == samples);
  CHECK(m["metadata"]["duration_seconds"].get<double>() == Approx(seconds).epsilon(1e-3));
  CHECK(m["metadata"]["source"].get<std::string>().find(" + ") != std::string::npos);
  CHECK(r.err.find("warning") == std::string::npos);

  auto d = swprof_cli({"diff", merged, runs.doubled()});
  CHECK(d.exit_code == 1);

  // A different command: a warning, merged anyway.
  auto w = swprof_cli({"merge", runs.base(0), runs.doubled(), "-o", dir.file("mixed.json")});
  CHECK(w.exit_code == 0);
  CHECK(w.err.find("warning: ") != std::string::npos);
  CHECK(w.err.find("merged anyway") != std::string::npos);
}

TEST_CASE("diff golden outputs: text, markdown and json on fixed profiles") {
  // The inputs are made by tests/golden/diff/make_inputs.py. Set
  // SWPROF_UPDATE_GOLDEN=1 to rewrite the expected files from this build.
  const std::string golden = std::string(GOLDEN_DIR) + "/diff";
  const bool update = std::getenv("SWPROF_UPDATE_GOLDEN") && std::string(std::getenv("SWPROF_UPDATE_GOLDEN")) == "1";
  TempDir dir;
  for (const char* input : {"base.json", "new.json"})
    std::filesystem::copy_file(golden + "/" + input, dir.file(input));
  struct Case {
    std::vector<std::string> args;
    std::string expected;
    int exit_code;
  };
  const std::vector<Case> cases = {
      {{"base.json", "new.json"}, "diff.txt", 1},
      {{"base.json", "new.json", "-f", "markdown"}, "diff.md", 1},
      {{"base.json", "new.json", "-f", "json"}, "diff.json", 1},
      {{"base.json", "new.json", "--folded", "diff.folded", "-o", "diff.out"}, "diff.folded", 1},
      // The other way round, judging only what got faster: no regression.
      {{"new.json", "base.json", "-f", "markdown", "--fail-on", "both", "--only", "^(hot_loop|compute)$"},
       "reverse.md", 0},
      {{"base.json", "new.json", "--fail-on", "self", "--min-share", "0", "--min-samples", "0", "--top", "3"},
       "self-top3.txt", 1},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {swprof_bin(), "diff"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    auto r = run(argv, dir.path());
    INFO(c.expected << "\n" << r.err);
    CHECK(r.exit_code == c.exit_code);
    const std::string out = c.expected == "diff.folded" ? slurp(dir.file("diff.folded")) : r.out;
    if (update) std::ofstream(golden + "/" + c.expected, std::ios::binary | std::ios::trunc) << out;
    CHECK(out == slurp(golden + "/" + c.expected));
  }
}

TEST_CASE("diff bad input: one line, exit 2") {
  auto& runs = Runs::get();
  TempDir dir;
  const std::string base = runs.base(0);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir.file(name)) << text;
    return dir.file(name);
  };
  one_line_error(swprof_cli({"diff", base, dir.file("missing.json")}), "No such file");
  one_line_error(swprof_cli({"diff", base, write("garbage.json", "{ not json")}), "is not valid JSON");
  one_line_error(swprof_cli({"diff", base, write("text.txt", "hello\n")}), "");
  std::string v2 = slurp(base);
  v2.replace(v2.find("\"version\": 1"), 12, "\"version\": 2");
  one_line_error(swprof_cli({"diff", base, write("v2.json", v2)}), "version 2 is not supported");
  std::string cut = slurp(base);
  one_line_error(swprof_cli({"diff", write("cut.json", cut.substr(0, cut.size() / 2)), base}), "is not valid JSON");

  // An empty profile: every sample filtered away.
  const std::string empty = dir.file("empty.json");
  REQUIRE(swprof_cli({"report", runs.base_recording(0), "--comm", "no-such-thread", "-f", "json", "-o", empty}).exit_code == 0);
  one_line_error(swprof_cli({"diff", empty, base}), "has no samples");
  one_line_error(swprof_cli({"merge", empty, "-o", dir.file("m.json")}), "none of the inputs has samples");

  one_line_error(swprof_cli({"diff", base, base, "--fail-on", "sometimes"}), "unknown --fail-on 'sometimes'");
  one_line_error(swprof_cli({"diff", base, base, "-f", "html"}), "unknown format 'html'");
  one_line_error(swprof_cli({"diff", base, base, "--only", "("}), "invalid --only regex");
  one_line_error(swprof_cli({"diff", base, base, "--min-share", "200"}), "--min-share");
  one_line_error(swprof_cli({"diff", base, base, "--reverse"}), "--reverse");
  one_line_error(swprof_cli({"diff", base}), "");  // CLI11: NEW is required
  one_line_error(swprof_cli({"diff", base, base, "-o", dir.path()}), "cannot write");
  one_line_error(swprof_cli({"diff", base, runs.base_recording(0), "--comm", "x"}), "need a recording");
  const std::string folded = dir.file("out.folded"), html = dir.file("out.html");
  one_line_error(swprof_cli({"diff", base, dir.file("missing.json"), "--folded", folded, "--html", html}),
                 "No such file");
  CHECK_FALSE(std::filesystem::exists(folded));
  CHECK_FALSE(std::filesystem::exists(html));

  // Profiles of different programs: a warning, compared anyway.
  const std::string paths = runs.json_of("paths", {target("diff_target"), "paths"});
  std::string other = slurp(paths);
  other.replace(other.find("diff_target\""), 12, "other_progr\"");
  auto w = swprof_cli({"diff", base, write("other.json", other)});
  INFO(w.err);
  CHECK(w.exit_code != 2);
  CHECK(w.err.find("warning: ") != std::string::npos);
  CHECK(w.err.find("profile different programs ('diff_target' and 'other_progr')") != std::string::npos);
}

TEST_CASE("diff --ignore-modules: the same program built under another name passes the gate") {
  auto& runs = Runs::get();
  const std::string renamed = runs.dir() + "/diff_target_new";
  std::filesystem::copy_file(target("diff_target"), renamed, std::filesystem::copy_options::overwrite_existing);
  const std::string next = runs.json_of("renamed", {renamed, "bench"});

  // By module, the program's functions are all new: the gate fails.
  auto by_module = swprof_cli({"diff", runs.base(0), next, "-f", "json"});
  INFO(by_module.err);
  CHECK(by_module.exit_code == 1);
  CHECK(by_module.err.find("profile different programs") != std::string::npos);

  auto by_name = swprof_cli({"diff", runs.base(0), next, "-f", "json", "--ignore-modules"});
  INFO(by_name.out << by_name.err);
  REQUIRE(by_name.exit_code == 0);
  CHECK(by_name.err.find("profile different programs") == std::string::npos);
  const json d = json::parse(by_name.out);
  CHECK(d["failing"] == 0);
  bool hot_loop = false;
  for (const auto& f : d["functions"])
    if (f["name"] == "hot_loop") {
      hot_loop = true;
      CHECK(f["module"] == "diff_target_new");
      CHECK(f["total"]["base_percent"].get<double>() == Approx(f["total"]["new_percent"].get<double>()).margin(5));
    }
  CHECK(hot_loop);
}
