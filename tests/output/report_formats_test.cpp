#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "output/folded_input.h"
#include "output/report.h"
#include "support/profile_fixture.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("folded: one sorted line per distinct stack with its self count") {
  Profile p = sample_profile();
  std::ostringstream out;
  write_folded(p.tree, {}, out);
  CHECK(out.str() ==
        "main;a 10\n"
        "main;a;b 60\n"
        "main;c;b 25\n"
        "main;rec;rec;rec 5\n");
}

TEST_CASE("folded: modules, annotations and separators in names") {
  CallTree t;
  add_stack(t, {fn("main"), fn("inl", "app", kCctInline), fn("sys_read", "[kernel]", kCctKernel)}, 2);
  add_stack(t, {fn("main"), fn("maybe", "app", kCctGuess), fn("odd;name\n", "lib.so")}, 1);
  t.sort_children();
  std::ostringstream plain, modules;
  write_folded(t, {}, plain);
  FoldedOptions o;
  o.modules = true;
  write_folded(t, o, modules);
  CHECK(plain.str() == "main;inl_[i];sys_read_[k] 2\nmain;maybe_[g];odd_name_ 1\n");
  CHECK(modules.str() == "app`main;app`inl_[i];[kernel]`sys_read_[k] 2\napp`main;app`maybe_[g];lib.so`odd_name_ 1\n");
}

TEST_CASE("folded: a backtick in a function name reads back as one frame") {
  CallTree t;
  add_stack(t, {fn("main"), fn("tail`", "lib.so"), fn("a`b", "lib.so")}, 3);
  t.sort_children();
  std::ostringstream plain, modules;
  write_folded(t, {}, plain);
  FoldedOptions o;
  o.modules = true;
  write_folded(t, o, modules);
  // Without modules the reader would split "a`b" into module "a" and
  // function "b", and refuse "tail`" as an empty function.
  CHECK(plain.str() == "main;tail_;a_b 3\n");
  CHECK(modules.str() == "app`main;lib.so`tail`;lib.so`a`b 3\n");
  for (const std::string& text : {plain.str(), modules.str()}) {
    std::istringstream in(text);
    const CallTree back = read_folded(in, "written.folded");
    CHECK(back.total() == 3);
    CHECK(back.nodes().size() == t.nodes().size());
  }
}

TEST_CASE("json: writes the documented fields and reads back the same tree") {
  Profile p = sample_profile();
  std::ostringstream out;
  write_json_profile(p, out);
  const auto doc = nlohmann::json::parse(out.str());
  CHECK(doc["format"] == "swprof-profile");
  CHECK(doc["version"] == kJsonProfileVersion);
  CHECK(doc["metadata"]["samples"] == 100);
  CHECK(doc["metadata"]["command"][1] == "--fast");
  CHECK(doc["nodes"][0]["parent"] == -1);
  CHECK(doc["nodes"][0]["total"] == 100);
  CHECK(doc["nodes"].size() == p.tree.nodes().size());

  TempDir dir;
  const std::string path = dir.path() + "/p.json";
  std::ofstream(path) << out.str();
  Profile back = read_json_profile(path);
  REQUIRE(back.tree.nodes().size() == p.tree.nodes().size());
  REQUIRE(back.tree.frames().size() == p.tree.frames().size());
  CHECK(back.tree.total() == 100);
  CHECK(back.header.command == p.header.command);
  CHECK(back.weight_unit == "nanoseconds");
  // Writing the read profile again gives the same document, but the source.
  std::ostringstream again;
  back.source = p.source;
  write_json_profile(back, again);
  CHECK(again.str() == out.str());
}

TEST_CASE("json: damaged or foreign profiles are refused with one line") {
  Profile p = sample_profile();
  std::ostringstream out;
  write_json_profile(p, out);
  const std::string good = out.str();
  TempDir dir;
  auto refused = [&](const std::string& text, const std::string& expect) {
    const std::string path = dir.path() + "/bad.json";
    std::ofstream(path, std::ios::trunc) << text;
    try {
      read_json_profile(path);
      FAIL("accepted: " << expect);
    } catch (const Error& e) {
      const std::string msg = e.what();
      CHECK(msg.find(expect) != std::string::npos);
      CHECK(msg.find('\n') == std::string::npos);
    }
  };
  auto replace = [&](std::string s, const std::string& from, const std::string& to) {
    const auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  refused("not json", "not valid JSON");
  refused("{\"format\": \"other\"}", "not a swprof JSON profile");
  refused(replace(good, "\"version\": 1", "\"version\": 7"), "version 7 is not supported");
  refused(good.substr(0, good.size() / 2), "not valid JSON");
  // A node whose id does not match its stack.
  const auto doc = nlohmann::json::parse(good);
  const std::string id = doc["nodes"][2]["id"];
  refused(replace(good, id, "0123456789abcdef"), "context id");
  // Totals that do not add up.
  refused(replace(good, "\"total\":100", "\"total\":101"), "is not its self samples");
  // Counts must be integers: a float out of range would not convert.
  refused(replace(good, "\"total\":100", "\"total\":1.5e57"), "field total: expected an integer");
  refused(replace(good, "\"self\":0", "\"self\":-2.5"), "field self: expected an integer");
  refused(replace(good, "\"frame\":0", "\"frame\":1e300"), "field frame: expected an integer");
  refused(replace(good, "\"version\": 1", "\"version\": 1e99"), "field version: expected an integer");
}

TEST_CASE("speedscope: a sampled profile per thread root, weights match samples") {
  Profile p = sample_profile();
  std::ostringstream out;
  write_speedscope(p, out);
  const auto doc = nlohmann::json::parse(out.str());
  CHECK(doc["$schema"] == "https://www.speedscope.app/file-format-schema.json");
  const auto& frames = doc["shared"]["frames"];
  REQUIRE(doc["profiles"].size() == 1);
  const auto& prof = doc["profiles"][0];
  CHECK(prof["type"] == "sampled");
  CHECK(prof["unit"] == "nanoseconds");
  REQUIRE(prof["samples"].size() == prof["weights"].size());
  uint64_t sum = 0;
  for (const auto& w : prof["weights"]) sum += w.get<uint64_t>();
  CHECK(sum == 100 * 1000);
  CHECK(prof["endValue"] == sum);
  for (const auto& s : prof["samples"])
    for (const auto& f : s) CHECK(f.get<size_t>() < frames.size());

  // With thread roots: one profile per thread, named after it.
  Profile threads;
  threads.weight_unit = "events";
  add_stack(threads.tree, {fn("t1 [1]", "[thread]", kCctThread), fn("main")}, 3);
  add_stack(threads.tree, {fn("t2 [2]", "[thread]", kCctThread), fn("main"), fn("x")}, 2);
  threads.tree.sort_children();
  std::ostringstream out2;
  write_speedscope(threads, out2);
  const auto doc2 = nlohmann::json::parse(out2.str());
  REQUIRE(doc2["profiles"].size() == 2);
  CHECK(doc2["profiles"][0]["name"] == "t1 [1]");
  CHECK(doc2["profiles"][0]["unit"] == "none");
  CHECK(doc2["profiles"][1]["endValue"] == 2);
  CHECK(doc2["profiles"][1]["samples"][0].size() == 2);  // main, x: the thread frame is the profile
}

TEST_CASE("text: header, top table and a pruned tree") {
  Profile p = sample_profile();
  std::ostringstream out;
  TextReportOptions o;
  o.min_percent = 6;
  write_text_report(p, o, out);
  const std::string s = out.str();
  CHECK(s.find("command:   ./app --fast") != std::string::npos);
  CHECK(s.find("100 in 0.10 s, 0 lost, 1 thread") != std::string::npos);
  CHECK(s.find("   85.00    85.00        85  b  [app]") != std::string::npos);
  CHECK(s.find("  70.00%   10.00%      a  [app]") != std::string::npos);
  CHECK(s.find("rec") == s.find("rec  [app]"));  // rec is 5 %: only in the top table
  CHECK(s.find("  rec  [app]", s.find("Calling-context tree")) == std::string::npos);
}

TEST_CASE("format names") {
  CHECK(parse_report_format("folded") == ReportFormat::kFolded);
  CHECK_THROWS_WITH(parse_report_format("svg"), Catch::Contains("unknown format 'svg'"));
}
