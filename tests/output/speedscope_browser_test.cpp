// speedscope files (output/speedscope_writer.h) loaded into the real
// speedscope app: the npm package `speedscope` (scripts/setup_speedscope.sh
// installs it in SPEEDSCOPE_APP_DIR), served with the file from
// 127.0.0.1 and opened in headless Chromium with #profileURL=.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "output/speedscope_writer.h"
#include "support/browser.h"
#include "support/cli_harness.h"
#include "support/http_server.h"
#include "support/profile_fixture.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// Two threads; the first alternates fa and fb, `turns` turns of 3 samples.
Profile alternating_profile(int turns = 100) {
  Profile p;
  p.header.command = {"./alternating"};
  p.header.start_monotonic_ns = 1'000'000'000;
  p.weight_unit = "nanoseconds";
  const CctFrame main_thread = fn("alternating [4242]", "[thread]", kCctThread);
  const CctFrame worker = fn("quiet worker [4243]", "[thread]", kCctThread);
  uint64_t t = p.header.start_monotonic_ns;
  for (int turn = 0; turn < turns; ++turn)
    for (int i = 0; i < 3; ++i, t += 1'000'000)
      add_timed_sample(p, {main_thread, fn("main"), fn(turn % 2 ? "fb" : "fa")}, 4242, t, 1'000'000);
  add_timed_sample(p, {worker, fn("worker_main"), fn("wait")}, 4243, t, 5'000'000);
  p.tree.sort_children();
  order_timeline(p.timeline);
  return p;
}

// The DOM speedscope shows for `profile_text` served as profile.json, in
// its time-ordered view; with `png`, a screenshot of it there instead.
DomDump open_in_speedscope(const std::string& profile_text, const std::string& png = "") {
  const std::string app = SPEEDSCOPE_APP_DIR;
  INFO("the speedscope app: run scripts/setup.sh (or scripts/setup_speedscope.sh)");
  REQUIRE(std::filesystem::exists(app + "/index.html"));
  TempDir dir;
  const std::string site = dir.file("site");
  std::filesystem::create_directory(site);
  std::filesystem::create_directory_symlink(app, site + "/speedscope");
  std::ofstream(site + "/profile.json", std::ios::binary) << profile_text;
  const LocalHttpServer server(site, dir.path());
  const std::string url =
      server.url("speedscope/index.html#profileURL=" + server.url("profile.json") + "&view=time-ordered");
  const DomDump dump = png.empty() ? dump_dom(url, dir.path(), 5000) : screenshot(url, dir.path(), 5000, png);
  INFO("Chromium log:\n" << dump.log_tail);
  REQUIRE(dump.exit_code == 0);
  return dump;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The most changes of colour along one row of the minimap at the top of the
// Time Order view (rows 20-130 of the 1280x900 window), counting blocks of
// at least 10 pixels (support/png_color_runs.py).
int minimap_color_changes(const Profile& profile) {
  std::ostringstream file;
  write_speedscope(profile, file);
  TempDir dir;
  const std::string png = dir.file("speedscope.png");
  open_in_speedscope(file.str(), png);
  const ProcessResult r = run({"/usr/bin/env", "python3", PNG_COLOR_RUNS, png, "20", "130", "10"}, dir.path());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out)["changes"].get<int>();
}

}  // namespace

TEST_CASE("speedscope app: a time-ordered file loads, named, in the time order view", "[chromium][speedscope]") {
  std::ostringstream file;
  write_speedscope(alternating_profile(), file);
  const DomDump dump = open_in_speedscope(file.str());
  INFO("DOM:\n" << dump.dom.substr(0, 4000));
  CHECK(contains(dump.dom, "<title>swprof: ./alternating - speedscope</title>"));  // the file's name
  CHECK(contains(dump.dom, "alternating [4242]"));  // the active profile: the first thread
  CHECK(contains(dump.dom, "Time Order"));
  CHECK(contains(dump.dom, "<canvas"));             // the flame chart
  CHECK_FALSE(contains(dump.dom, "Something went wrong"));
  CHECK(dump.seconds < 20);
}

TEST_CASE("speedscope app: a broken file shows its error instead (the check above can fail)", "[chromium][speedscope]") {
  std::ostringstream file;
  write_speedscope(alternating_profile(), file);
  std::string broken = file.str();
  const std::string weights = "\"weights\":[";
  broken.insert(broken.find(weights) + weights.size(), "1,");  // one weight more than samples
  const DomDump dump = open_in_speedscope(broken);
  INFO("DOM:\n" << dump.dom.substr(0, 4000));
  CHECK(contains(dump.dom, "Something went wrong"));
  CHECK_FALSE(contains(dump.dom, "alternating [4242]"));
}

TEST_CASE("speedscope app: the Time Order view draws the turns of fa and fb, the aggregated form two blocks",
          "[chromium][speedscope]") {
  const Profile timed = alternating_profile(20);  // 20 blocks of 64 pixels
  CHECK(minimap_color_changes(timed) == 19);
  Profile aggregated = timed;
  aggregated.timeline.clear();  // as from a JSON profile: one sample per stack
  CHECK(minimap_color_changes(aggregated) == 1);
}
