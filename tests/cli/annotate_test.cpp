// `swprof annotate` end to end: recordings (swprof's and perf's) of
// known_hot_line, whose time sits on one source line (a division), read by
// line and by instruction. (The same program in pprof's -list and -disasm:
// report_pprof_test.cpp.)

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_harness.h"
#include "support/flamegraph_page.h"
#include "support/perf_runner.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof::testing;
using nlohmann::json;

namespace {

std::string hot_line_bin() { return std::string(KNOWN_STACK_DIR) + "/known_hot_line"; }
std::string hot_line_source() { return std::string(SYM_SOURCE_DIR) + "/known_hot_line.c"; }

// Line number of the line of known_hot_line.c holding `marker`.
uint32_t marked_line(const std::string& marker) {
  std::istringstream in(read_file(hot_line_source()));
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  FAIL("no " << marker << " in " << hot_line_source());
  return 0;
}

ProcessResult swprof_in(const TempDir& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {swprof_bin()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, dir.path());
}

ProcessResult succeeded(const ProcessResult& r) {
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r;
}

// A recording of known_hot_line in `dir`, made once per test.
std::string record_hot_line(const TempDir& dir) {
  succeeded(swprof_in(dir, {"record", "-F", "999", "-o", dir.file("hot.swprof"), "--", hot_line_bin()}));
  return dir.file("hot.swprof");
}

// `perf record ARGS -- known_hot_line` run in `dir` with /tmp and HOME being
// `dir` (perf writes /tmp/perf-vdso.so-* files) and -N (no build-id cache).
json annotate_json(const TempDir& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"annotate", "-f", "json"};
  argv.insert(argv.end(), args.begin(), args.end());
  return json::parse(succeeded(swprof_in(dir, argv)).out);
}

// hash_buf's lines and instructions: the hot line has the most samples, and
// the hottest instruction is the division or one of the few after it (a
// timer sample lands after the slow instruction: skid).
void check_hot_line(const json& functions) {
  REQUIRE(functions.is_array());
  REQUIRE(functions.size() == 1);
  const json& f = functions[0];
  CHECK(f["function"] == "hash_buf");
  CHECK(f["module"] == "known_hot_line");
  CHECK(f["path"] == hot_line_bin());
  CHECK(f["build_id"].get<std::string>().size() == 40);
  const uint64_t samples = f["samples"];
  REQUIRE(samples > 50);
  uint64_t own = 0, hottest_line = 0, hottest_samples = 0;
  for (const json& l : f["lines"]) {
    if (l["depth"] != 0) continue;
    own += l["samples"].get<uint64_t>();
    if (l["samples"] > hottest_samples) hottest_samples = l["samples"], hottest_line = l["line"];
  }
  CHECK(own == samples);  // depth 0 lines add up to the function
  CHECK(hottest_line == marked_line("@hot-line"));
  CHECK(hottest_samples > samples / 2);
  const json& insns = f["instructions"];
  size_t div = insns.size(), hottest = 0;
  uint64_t in_instructions = 0;
  for (size_t i = 0; i < insns.size(); ++i) {
    if (insns[i]["text"].get<std::string>().rfind("div", 0) == 0) div = i;
    if (insns[i]["samples"] > insns[hottest]["samples"]) hottest = i;
    in_instructions += insns[i]["samples"].get<uint64_t>();
  }
  CHECK(in_instructions == samples);
  REQUIRE(div < insns.size());
  INFO("hottest " << insns[hottest].dump() << ", division " << insns[div].dump());
  CHECK(hottest >= div);
  CHECK(hottest <= div + 3);
  CHECK(insns[hottest]["line"] == marked_line("@hot-line"));
  CHECK(insns[div]["address"].get<std::string>().rfind("0x", 0) == 0);
}

}  // namespace

TEST_CASE("annotate: json: the most samples on the hot line, the hottest instruction at the division",
          "[integration][annotate]") {
  TempDir dir;
  const std::string rec = record_hot_line(dir);
  check_hot_line(annotate_json(dir, {"hash_buf", rec}));
  // With no FUNCTION, hash_buf is the hottest; one argument that is a
  // recording is the FILE.
  const json top = annotate_json(dir, {rec, "--top", "1"});
  REQUIRE(top.size() == 1);
  CHECK(top[0]["function"] == "hash_buf");
}

TEST_CASE("annotate: text: the skid note, source lines with their text, instructions under their lines",
          "[integration][annotate]") {
  TempDir dir;
  const std::string rec = record_hot_line(dir);
  // The DWARF path of the source is relative in a ccache build: the folder
  // of the checkout's tests/programs finds it either way.
  const ProcessResult r = succeeded(swprof_in(dir, {"annotate", "hash", rec, "--source-dir", SYM_SOURCE_DIR}));
  const std::string& out = r.out;
  CHECK(out.find("skid") != std::string::npos);
  CHECK(out.find("== hash_buf  [known_hot_line]") != std::string::npos);
  CHECK(out.find("not found") == std::string::npos);
  // The hot line, with its text, has the most samples of the source lines.
  std::istringstream in(out.substr(out.find("Source lines")));
  std::string line, hottest;
  uint64_t most = 0;
  while (std::getline(in, line) && !line.empty()) {
    std::istringstream row(line);
    uint64_t samples = 0;
    if ((row >> samples) && samples > most) most = samples, hottest = line;
  }
  CHECK(hottest.find("@hot-line") != std::string::npos);
  CHECK(hottest.find(" " + std::to_string(marked_line("@hot-line")) + "  ") != std::string::npos);
  // In the instructions, the division sits under its line's heading.
  const size_t heading = out.find("known_hot_line.c:" + std::to_string(marked_line("@hot-line")) + "  ");
  REQUIRE(heading != std::string::npos);
  CHECK(out.find("div", heading) < out.find("known_hot_line.c:", heading + 1));
  CHECK(r.err.find("swprof annotate: ") != std::string::npos);
}

TEST_CASE("annotate: a moved source tree is found with --prefix-map", "[integration][annotate]") {
  TempDir dir;
  const std::string rec = record_hot_line(dir);
  const std::string dwarf_file = annotate_json(dir, {"hash_buf", rec})[0]["file"];
  // The moved tree's copy of the source, told apart by a word on its hot line.
  std::string source = read_file(hot_line_source());
  source.insert(source.find("// @hot-line"), "/* moved */ ");
  std::filesystem::create_directories(dir.file("moved"));
  std::ofstream(dir.file("moved/known_hot_line.c")) << source;
  const std::string old_folder = dwarf_file.substr(0, dwarf_file.rfind('/'));
  const ProcessResult with =
      succeeded(swprof_in(dir, {"annotate", "hash_buf", rec, "--prefix-map", old_folder + "=" + dir.file("moved")}));
  CHECK(with.out.find("/* moved */ // @hot-line") != std::string::npos);
  const ProcessResult elsewhere =
      succeeded(swprof_in(dir, {"annotate", "hash_buf", rec, "--prefix-map", "/nowhere=" + dir.file("moved")}));
  CHECK(elsewhere.out.find("/* moved */") == std::string::npos);
}

TEST_CASE("annotate: perf.data files, with and without a call graph", "[integration][annotate][perf_data]") {
  for (const char* mode : {"plain", "-g"}) {
    SECTION(mode) {
      TempDir dir;
      const std::string data = perf_record(
          dir, "perf.data", std::string(mode) == "-g" ? std::vector<std::string>{"-g"} : std::vector<std::string>{},
          {hot_line_bin()});
      check_hot_line(annotate_json(dir, {"hash_buf", data}));
    }
  }
}

TEST_CASE("annotate: inlined code counts at its call line and, one level in, at its own lines",
          "[integration][annotate]") {
  TempDir dir;
  const std::string program = std::string(KNOWN_STACK_DIR) + "/known_inline";
  succeeded(swprof_in(dir, {"record", "-F", "999", "-o", dir.file("inline.swprof"), "--", program, "0.3"}));
  // The inlined function's name selects the function it is inlined into.
  const json functions = annotate_json(dir, {"spin_inlined", dir.file("inline.swprof")});
  REQUIRE(functions.size() == 1);
  const json& f = functions[0];
  CHECK(f["function"] == "spin_caller");
  const std::string source = std::string(SYM_SOURCE_DIR) + "/known_inline.c";
  const auto line_of = [&](const std::string& marker) {
    std::istringstream in(read_file(source));
    std::string line;
    for (uint32_t n = 1; std::getline(in, line); ++n)
      if (line.find(marker) != std::string::npos) return n;
    return 0u;
  };
  uint64_t at_call = 0, in_loop = 0;
  for (const json& l : f["lines"]) {
    if (l["depth"] == 0 && l["line"] == line_of("@spin-call")) at_call += l["samples"].get<uint64_t>();
    if (l["depth"] == 1 && l["function"] == "spin_inlined" && l["line"] == line_of("@spin-loop"))
      in_loop += l["samples"].get<uint64_t>();
  }
  const uint64_t samples = f["samples"];
  CHECK(at_call > samples * 8 / 10);
  CHECK(in_loop > samples * 8 / 10);
  // Its instructions carry the chain: spin_caller's call line, then the loop.
  bool chained = false;
  for (const json& i : f["instructions"])
    if (i.contains("inlined") && i["inlined"][0]["function"] == "spin_inlined" && i["line"] == line_of("@spin-call") &&
        i["inlined"][0]["line"] == line_of("@spin-loop"))
      chained = true;
  CHECK(chained);
}

TEST_CASE("annotate: bad input is one clear line", "[cli][annotate]") {
  TempDir dir;
  const std::string profile = std::string(GOLDEN_DIR) + "/report/profile.json";
  const ProcessResult json_input = swprof_in(dir, {"annotate", "main", profile});
  CHECK(json_input.exit_code == 2);
  CHECK(json_input.err.find("annotate reads a recording") != std::string::npos);
  CHECK(line_count(json_input.err) == 1);
  const std::string rec = std::string(GOLDEN_DIR) + "/recording/known_tiny.swprof";
  const ProcessResult bad_pattern = swprof_in(dir, {"annotate", "spin(", rec});
  CHECK(bad_pattern.exit_code == 2);
  CHECK(bad_pattern.err.find("invalid function regex 'spin('") != std::string::npos);
  CHECK(line_count(bad_pattern.err) == 1);
  const ProcessResult nothing = swprof_in(dir, {"annotate", "no_such_function", rec});
  CHECK(nothing.exit_code == 2);
  CHECK(nothing.err.find("no function matching 'no_such_function' has samples") != std::string::npos);
  const ProcessResult map = swprof_in(dir, {"annotate", "spin", rec, "--prefix-map", "nothing-to-map"});
  CHECK(map.exit_code == 2);
  CHECK(map.err.find("--prefix-map 'nothing-to-map': expected OLD=NEW") != std::string::npos);
  CHECK(line_count(map.err) == 1);
  const ProcessResult missing = swprof_in(dir, {"annotate"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("no recording 'swprof.data' here") != std::string::npos);
}

// The flame graph page of the same recording: its details panel lists a
// function's source lines with their samples ("sourceLines" in the page's
// data), the same counts as annotate's lines of the function.
TEST_CASE("annotate: the flame graph page holds hash_buf's lines with annotate's counts, the most on the hot line",
          "[integration][annotate]") {
  TempDir dir;
  const std::string rec = record_hot_line(dir);
  const json f = annotate_json(dir, {"hash_buf", rec})[0];
  std::map<std::pair<std::string, uint64_t>, uint64_t> annotated;
  for (const json& l : f["lines"])
    if (l["depth"] == 0 && l["samples"] > 0) annotated[{l["file"], l["line"]}] = l["samples"];
  REQUIRE(!annotated.empty());

  succeeded(swprof_in(dir, {"flamegraph", rec, "-o", dir.file("hot.html")}));
  const json data = json::parse(data_text(read_file(dir.file("hot.html"))));
  // Frame names are front-coded: name[i] = name[i-1][0, prefix[i]) + name[i].
  const json& frames = data["frames"];
  std::vector<std::string> names;
  for (size_t i = 0; i < frames["name"].size(); ++i) {
    const std::string before = names.empty() ? "" : names.back();
    names.push_back(before.substr(0, frames["prefix"][i].get<size_t>()) + frames["name"][i].get<std::string>());
  }
  REQUIRE(data.contains("sourceLines"));
  const json& lines = data["sourceLines"];
  std::map<std::pair<std::string, uint64_t>, uint64_t> on_page;
  for (size_t k = 0; k < lines["frame"].size(); ++k) {
    if (names.at(lines["frame"][k].get<size_t>()) != "hash_buf") continue;
    on_page[{data["files"].at(lines["file"][k].get<size_t>()), lines["line"][k]}] += lines["samples"][k].get<uint64_t>();
  }
  CHECK(on_page == annotated);
  uint64_t all = 0, hot = 0;
  for (const auto& [where, samples] : on_page) {
    all += samples;
    if (where.second == marked_line("@hot-line")) hot = samples;
  }
  CHECK(hot * 2 > all);
}
