// `swprof flamegraph` end to end: a real recording of the known-stack program
// becomes a page whose search finds the known leaf with the share the folded
// report gives; folded and JSON inputs; bad input.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/browser.h"
#include "support/cli_harness.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using nlohmann::json;
using namespace swprof::testing;

namespace {

// Samples whose folded stack has a frame named exactly `name`, and all samples.
std::pair<uint64_t, uint64_t> folded_share(const std::string& folded, const std::string& name) {
  uint64_t with = 0, all = 0;
  std::istringstream in(folded);
  std::string line;
  while (std::getline(in, line)) {
    const auto sp = line.rfind(' ');
    const uint64_t n = std::stoull(line.substr(sp + 1));
    const std::string stack = ";" + line.substr(0, sp) + ";";
    all += n;
    if (stack.find(";" + name + ";") != std::string::npos) with += n;
  }
  return {with, all};
}

// The page's data (<script id="swprof-data">), parsed.
json page_data(const std::string& page_text) {
  const std::string open = "id=\"swprof-data\">";
  const auto start = page_text.find(open);
  REQUIRE(start != std::string::npos);
  const auto from = start + open.size();
  return json::parse(page_text.substr(from, page_text.find("</script>", from) - from));
}

}  // namespace

TEST_CASE("flamegraph of a recording: the page finds the known leaf with the report's share", "[chromium]") {
  TempDir dir;
  const std::string rec = dir.file("known.swprof");
  REQUIRE(run({swprof_bin(), "record", "-F", "999", "-o", rec, "--", std::string(KNOWN_STACK_DIR) + "/known_stack_O2_fp",
               "leaf", "0.5"},
              dir.path())
              .exit_code == 0);
  const std::string html = dir.file("known.html");
  auto fg = run({swprof_bin(), "flamegraph", rec, "-o", html}, dir.path());
  INFO(fg.err);
  REQUIRE(fg.exit_code == 0);
  auto folded = run({swprof_bin(), "report", rec, "-f", "folded"}, dir.path());
  REQUIRE(folded.exit_code == 0);
  const auto [leaf, all] = folded_share(folded.out, "leaf");
  REQUIRE(all > 0);
  CHECK(leaf * 10 >= all * 9);

  BrowserRun page = run_in_chromium(read_file(html), R"(
    out.search = api.search('^leaf$', { regex: true });
    out.title = document.title;
  )",
                                    json::object(), dir.path());
  const json& r = page.results;
  INFO(r.dump());
  CHECK(r["errors"].empty());
  CHECK(r["alerts"].empty());
  CHECK(r["search"]["matchedSamples"] == leaf);
  CHECK(r["title"].get<std::string>().find("known_stack_O2_fp leaf 0.5") != std::string::npos);

  // The same profile through JSON gives the same page data, but for the
  // time order and the source lines, which only a recording has.
  const std::string json_path = dir.file("known.json");
  REQUIRE(run({swprof_bin(), "report", rec, "-f", "json", "-o", json_path}, dir.path()).exit_code == 0);
  const std::string html2 = dir.file("from-json.html");
  REQUIRE(run({swprof_bin(), "flamegraph", json_path, "-o", html2}, dir.path()).exit_code == 0);
  json from_recording = page_data(read_file(html));
  const json from_json = page_data(read_file(html2));
  CHECK(from_recording.contains("timeline"));
  CHECK_FALSE(from_json.contains("timeline"));
  from_recording.erase("timeline");
  from_recording.erase("sourceLines");
  CHECK_FALSE(from_json.contains("sourceLines"));
  CHECK(from_json == from_recording);
}

TEST_CASE("flamegraph of a recording: the time order shows the thread taking turns in fa and fb", "[chromium]") {
  TempDir dir;
  const std::string rec = dir.file("alternating.swprof");
  auto recorded = run({swprof_bin(), "record", "-F", "4000", "-o", rec, "--", KNOWN_ALTERNATING_BIN, "200"}, dir.path());
  INFO(recorded.err);
  REQUIRE(recorded.exit_code == 0);
  const std::string html = dir.file("alternating.html");
  auto fg = run({swprof_bin(), "flamegraph", rec, "-o", html}, dir.path());
  INFO(fg.err);
  REQUIRE(fg.exit_code == 0);
  BrowserRun page = run_in_chromium(read_file(html), R"(
    api.showView('time');
    var lane = api.timeline().lanes[0];
    out.name = lane.name;
    out.lanes = api.timeline().lanes.length;
    out.leaves = lane.blocks.map(function (b) { return b.leaf; }).filter(function (n) { return n === 'fa' || n === 'fb'; });
    out.inOrder = lane.blocks.every(function (b, i) { return b.start <= b.end && (i === 0 || lane.blocks[i - 1].end <= b.start); });
    out.drawn = api.timeline().drawnSpans;
  )",
                                    json::object(), dir.path());
  const json& r = page.results;
  INFO(r.dump().substr(0, 2000));
  CHECK(r["errors"].empty());
  CHECK(r["lanes"] == 1);
  CHECK(r["name"].get<std::string>().rfind("known_alternati [", 0) == 0);
  CHECK(r["inOrder"] == true);
  CHECK(r["drawn"].get<int>() > 0);
  int changes = 0;
  for (size_t i = 1; i < r["leaves"].size(); ++i) changes += r["leaves"][i] != r["leaves"][i - 1];
  INFO("fa/fb blocks: " << r["leaves"].size());
  CHECK(changes >= 100);  // 399 when every turn was sampled; the aggregated tree gives none
}

TEST_CASE("flamegraph of folded stacks, and bad input") {
  TempDir dir;
  const std::string good = dir.file("good.folded");
  std::ofstream(good) << "main;parse;read_line 12\nmain;compute 3\n";
  const std::string html = dir.file("good.html");
  auto ok = run({swprof_bin(), "flamegraph", good, "-o", html}, dir.path());
  INFO(ok.err);
  REQUIRE(ok.exit_code == 0);
  CHECK(read_file(html).find("read_line") != std::string::npos);

  const std::string bad = dir.file("bad.folded");
  std::ofstream(bad) << "main;a 1\nmain;b\n";
  const std::string out = dir.file("bad.html");
  auto r = run({swprof_bin(), "flamegraph", bad, "-o", out}, dir.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(bad + ":2:") != std::string::npos);
  CHECK(line_count(r.err) == 1);
  CHECK_FALSE(std::filesystem::exists(out));

  const std::string script = dir.file("work.py");
  std::ofstream(script) << "import hashlib\n\nprint(hashlib.sha1(b'').hexdigest())\n";
  auto not_folded = run({swprof_bin(), "flamegraph", script, "-o", out}, dir.path());
  CHECK(not_folded.exit_code == 2);
  CHECK(not_folded.err == "swprof: error: '" + script + "' is not a recording, a JSON profile or folded stacks: its first "
                          "line \"import hashlib\" does not end with a sample count\n");
  CHECK_FALSE(std::filesystem::exists(out));

  auto filtered = run({swprof_bin(), "flamegraph", good, "--tid", "1", "-o", out}, dir.path());
  CHECK(filtered.exit_code == 2);
  CHECK(filtered.err.find("need a recording") != std::string::npos);

  auto to_dir = run({swprof_bin(), "flamegraph", good, "-o", dir.path()}, dir.path());
  CHECK(to_dir.exit_code == 2);
  CHECK(to_dir.err.find("cannot write") != std::string::npos);
}
