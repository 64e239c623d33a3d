// `--weight cpu|off-cpu|wall` end to end: report (every format), flamegraph,
// script, diff and merge on a recording written like `swprof record --wall`
// writes one (tests/support/off_cpu_recording.h), with this machine's kernel
// addresses so that kernel frames have names.

#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_harness.h"
#include "support/off_cpu_recording.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

struct WallRecording {
  TempDir dir;
  std::string path = dir.file("wall.swprof");
  std::string plain = dir.file("plain.swprof");
  WallRecording() {
    write_off_cpu_recording(path, host_kernel_addresses());
    write_off_cpu_recording(plain, host_kernel_addresses(), off_cpu_header(false));
  }
  ProcessResult swprof(std::vector<std::string> args) {
    args.insert(args.begin(), swprof_bin());
    return run(args, dir.path());
  }
};

WallRecording& recording() {
  static WallRecording r;
  return r;
}

// Folded lines "stack value", with unknown user frames (no mappings) left
// out of the stack: only kernel frames (root first: the blocking function,
// then schedule) and [preempted] stay; "anon_pipe_read" reads "pipe_read".
std::map<std::string, uint64_t> kernel_stacks(const std::string& folded) {
  std::map<std::string, uint64_t> out;
  std::istringstream in(folded);
  for (std::string line; std::getline(in, line);) {
    const size_t space = line.rfind(' ');
    const std::string stack = line.substr(0, space);
    const size_t k = std::min({stack.find("do_nanosleep"), stack.find("pipe_read"), stack.find("schedule")});
    out[k == std::string::npos ? "(user)" : stack.substr(k)] += std::stoull(line.substr(space + 1));
  }
  return out;
}

void one_line_error(const ProcessResult& r, const std::string& what) {
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find(what) != std::string::npos);
}

}  // namespace

TEST_CASE("weight: report --weight wall shares time between on-CPU work, waits and preemption") {
  auto& rec = recording();
  auto folded = rec.swprof({"report", rec.path, "-f", "folded", "--weight", "wall"});
  INFO(folded.err);
  REQUIRE(folded.exit_code == 0);
  const std::map<std::string, uint64_t> expected{
      {"(user)", 4'000'000},
      {"do_nanosleep_[k];schedule_[k]", 15'000'000},
      {"pipe_read_[k];schedule_[k]", 3'000'000},
      {"schedule_[k];[preempted]_[k]", 2'000'000},
  };
  CHECK(kernel_stacks(folded.out) == expected);

  // The recording's default weight is wall (it was made with --wall).
  auto text = rec.swprof({"report", rec.path});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("weight:    wall time 24.000 ms (on-CPU 16.7 %, off-CPU 83.3 %)") != std::string::npos);
  CHECK(text.out.find("Top functions by self time:") != std::string::npos);
  CHECK(text.out.find("do_nanosleep  [kernel]") != std::string::npos);
}

TEST_CASE("weight: --weight off-cpu and cpu select the samples, counts follow the selection") {
  auto& rec = recording();
  auto off = rec.swprof({"report", rec.path, "-f", "json", "--weight", "off-cpu"});
  REQUIRE(off.exit_code == 0);
  const auto doc = nlohmann::json::parse(off.out);
  CHECK(doc["metadata"]["weight_kind"] == "off-cpu");
  CHECK(doc["nodes"][0]["total"] == 4);
  CHECK(doc["nodes"][0]["total_weight"] == 20'000'000);
  CHECK(doc["nodes"][0]["total_off_cpu_weight"] == 20'000'000);

  auto cpu = rec.swprof({"report", rec.path, "-f", "json", "--weight", "cpu"});
  REQUIRE(cpu.exit_code == 0);
  const auto cpu_doc = nlohmann::json::parse(cpu.out);
  CHECK_FALSE(cpu_doc["metadata"].contains("weight_kind"));
  CHECK(cpu_doc["nodes"][0]["total"] == 4);
  CHECK(cpu_doc["nodes"][0]["total_weight"] == 4'000'000);

  auto speedscope = rec.swprof({"report", rec.path, "-f", "speedscope", "--weight", "off-cpu"});
  REQUIRE(speedscope.exit_code == 0);
  const auto ss = nlohmann::json::parse(speedscope.out);
  uint64_t sum = 0;
  for (const auto& profile : ss["profiles"]) {
    CHECK(profile["unit"] == "nanoseconds");
    for (const auto& w : profile["weights"]) sum += w.get<uint64_t>();
  }
  CHECK(sum == 20'000'000);
}

TEST_CASE("weight: bad --weight values and recordings without off-CPU data are one-line errors") {
  auto& rec = recording();
  one_line_error(rec.swprof({"report", rec.path, "--weight", "foo"}), "unknown weight 'foo': choose cpu, off-cpu or wall");
  one_line_error(rec.swprof({"report", rec.plain, "--weight", "off-cpu"}),
                 "this recording has no off-CPU data: record with --off-cpu or --wall");
  one_line_error(rec.swprof({"flamegraph", rec.plain, "--weight", "wall", "-o", rec.dir.file("no.html")}),
                 "this recording has no off-CPU data");
  CHECK_FALSE(std::filesystem::exists(rec.dir.file("no.html")));
  one_line_error(rec.swprof({"script", rec.plain, "--weight", "wall"}), "this recording has no off-CPU data");
  one_line_error(rec.swprof({"script", rec.path, "--weight", "sometimes"}), "unknown weight 'sometimes'");
  // cpu is what every recording has.
  CHECK(rec.swprof({"report", rec.plain, "--weight", "cpu"}).exit_code == 0);
}

TEST_CASE("weight: script prints off-CPU samples with their time and state") {
  auto& rec = recording();
  auto r = rec.swprof({"script", rec.path});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("worker 100/101 [001] 0.010000: off-cpu 5.000 ms (blocked)") != std::string::npos);
  CHECK(r.out.find("worker 100/101 [001] 0.040000: off-cpu 2.000 ms (preempted)") != std::string::npos);
  CHECK(r.out.find("main 100/100 [000] 0.050000: off-cpu 10.000 ms (open)") != std::string::npos);
  CHECK(r.out.find("worker 100/101 [001] 0.001000: 1000000 cpu-clock") != std::string::npos);
  CHECK(r.out.find("do_nanosleep+0x10 ([kernel])") != std::string::npos);
}

TEST_CASE("weight: the flame graph of a wall profile is wide by time and marks off-CPU nodes") {
  auto& rec = recording();
  const std::string html = rec.dir.file("wall.html");
  REQUIRE(rec.swprof({"flamegraph", rec.path, "-o", html}).exit_code == 0);
  const std::string page = read_file(html);
  CHECK(page.find("\"unit\":\"nanoseconds\"") != std::string::npos);
  CHECK(page.find("\"off\":[20000000,") != std::string::npos);  // the root: 20 of 24 ms off-CPU
  CHECK(page.find("\"total\":[24000000,") != std::string::npos);
  const std::string cpu_html = rec.dir.file("cpu.html");
  REQUIRE(rec.swprof({"flamegraph", rec.path, "--weight", "cpu", "-o", cpu_html}).exit_code == 0);
  CHECK(read_file(cpu_html).find("\"off\":[") == std::string::npos);
}

TEST_CASE("weight: diff and merge refuse profiles of different weights, JSON profiles keep theirs") {
  auto& rec = recording();
  const std::string wall = rec.dir.file("wall.json"), cpu = rec.dir.file("cpu.json");
  REQUIRE(rec.swprof({"report", rec.path, "-f", "json", "-o", wall}).exit_code == 0);
  REQUIRE(rec.swprof({"report", rec.path, "-f", "json", "--weight", "cpu", "-o", cpu}).exit_code == 0);
  auto schema = run({"/usr/bin/env", "python3", SCHEMA_CHECKER, SCHEMA_FILE, wall, cpu}, rec.dir.path());
  INFO(schema.out << schema.err);
  CHECK(schema.exit_code == 0);
  one_line_error(rec.swprof({"diff", cpu, wall}), "profiles of different weights cannot be compared");
  one_line_error(rec.swprof({"diff", wall, rec.path, "--weight", "cpu"}), "--weight cpu needs the recording");
  one_line_error(rec.swprof({"merge", wall, cpu, "-o", rec.dir.file("m.json")}), "cannot be merged");
  CHECK_FALSE(std::filesystem::exists(rec.dir.file("m.json")));

  // The same weight on both sides compares (A/A: no regression), with a differential flame graph.
  auto same = rec.swprof({"diff", rec.path, wall, "--weight", "wall", "--html", rec.dir.file("d.html")});
  INFO(same.err);
  CHECK(same.exit_code == 0);
  CHECK(std::filesystem::exists(rec.dir.file("d.html")));
  auto merged = rec.swprof({"merge", wall, wall});
  REQUIRE(merged.exit_code == 0);
  const auto doc = nlohmann::json::parse(merged.out);
  CHECK(doc["metadata"]["weight_kind"] == "wall");
  CHECK(doc["nodes"][0]["total_off_cpu_weight"] == 40'000'000);
}
