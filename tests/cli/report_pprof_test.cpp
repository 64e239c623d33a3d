// `swprof report --format pprof` end to end: real recordings of known
// programs, read back by `go tool pprof` (-top, -raw; -list, -disasm,
// -lines and -peek on the addresses) and by the generated classes, compared
// with swprof's own reports.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sampler/perf_event.h"
#include "support/cli_harness.h"
#include "support/pprof_text.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof::testing;
namespace pb = perftools::profiles;

namespace {

std::string program(const std::string& name) { return std::string(KNOWN_STACK_DIR) + "/" + name; }

// `go tool pprof ARGS` with everything it writes (cache, home, temporary
// files) inside `dir`.
ProcessResult go_pprof(const TempDir& dir, const std::vector<std::string>& args) {
  REQUIRE(std::filesystem::exists(GO_BIN));  // golang-go (scripts/setup.sh)
  std::vector<std::string> argv = {"/usr/bin/env",
                                   "HOME=" + dir.path(),
                                   "GOCACHE=" + dir.file("gocache"),
                                   "PPROF_TMPDIR=" + dir.file("pprof"),
                                   "TMPDIR=" + dir.path(),
                                   "GOTOOLCHAIN=local",
                                   "GOPROXY=off",
                                   GO_BIN,
                                   "tool",
                                   "pprof"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult r = run(argv, dir.path());
  INFO("go tool pprof stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return r;
}

struct TopRow {
  std::string function;
  double flat_percent = 0;
};

// The first row of `pprof -top`: "flat flat% sum% cum cum% NAME".
TopRow first_top_row(const std::string& top) {
  std::istringstream in(top);
  std::string line;
  while (std::getline(in, line) && line.find("flat%") == std::string::npos) {
  }
  REQUIRE(std::getline(in, line));
  std::istringstream row(line);
  std::string flat, flat_percent, sum, cum, cum_percent;
  row >> flat >> flat_percent >> sum >> cum >> cum_percent;
  TopRow r;
  std::getline(row >> std::ws, r.function);
  r.flat_percent = std::stod(flat_percent);
  return r;
}

// The first row of swprof's "Top functions by self samples" table.
TopRow first_text_row(const std::string& report) {
  const size_t table = report.find("Self%   Total%");
  REQUIRE(table != std::string::npos);
  std::istringstream in(report.substr(report.find('\n', table) + 1));
  TopRow r;
  std::string total, samples;
  in >> r.flat_percent >> total >> samples;
  std::string rest;
  std::getline(in >> std::ws, rest);
  r.function = rest.substr(0, rest.find("  ["));
  return r;
}

std::string record(const TempDir& dir, const std::vector<std::string>& command, const std::string& name,
                   const std::vector<std::string>& options = {}) {
  const std::string path = dir.file(name);
  std::vector<std::string> all = {"-F", "999"};
  all.insert(all.end(), options.begin(), options.end());
  const ProcessResult r = run_record(dir.path(), path, all, command);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return path;
}

std::string report_pprof(const TempDir& dir, const std::string& input, const std::string& name,
                         const std::vector<std::string>& options = {}) {
  std::vector<std::string> argv = {swprof_bin(), "report", input, "-f", "pprof", "-o", dir.file(name)};
  argv.insert(argv.end(), options.begin(), options.end());
  auto r = run(argv, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.empty());
  return dir.file(name);
}

// Line number of the line of `source` holding `marker`.
int64_t marked_line(const std::string& source, const std::string& marker) {
  std::istringstream in(read_file(source));
  std::string line;
  for (int64_t n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  FAIL("no " << marker << " in " << source);
  return 0;
}

// Samples per stack (function names leaf first, ';'-joined).
std::map<std::string, int64_t> samples_by_stack(const pb::Profile& p) {
  std::map<std::string, int64_t> out;
  for (const auto& s : p.sample()) {
    std::string key;
    for (const auto& name : pprof_stack(p, s)) key += (key.empty() ? "" : ";") + name;
    out[key] += s.value(0);
  }
  return out;
}

// The rows of `pprof -list` and `-disasm`: "FLAT CUM KEY: TEXT", FLAT a
// number or "." (none); KEY a source line's number or an instruction's
// address.
struct ListingRow {
  int64_t flat = 0;
  std::string key;
  std::string text;
};

std::vector<ListingRow> listing_rows(const std::string& listing) {
  std::vector<ListingRow> rows;
  std::istringstream in(listing);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string flat, cum, key;
    if (!(fields >> flat >> cum >> key) || key.size() < 2 || key.back() != ':') continue;
    if (flat != "." && flat.find_first_not_of("0123456789") != std::string::npos) continue;
    ListingRow row;
    row.flat = flat == "." ? 0 : std::stoll(flat);
    row.key = key.substr(0, key.size() - 1);
    std::getline(fields >> std::ws, row.text);
    rows.push_back(std::move(row));
  }
  return rows;
}

size_t hottest_row(const std::vector<ListingRow>& rows) {
  size_t at = 0;
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].flat > rows[at].flat) at = i;
  return at;
}

}  // namespace

TEST_CASE("report pprof: go tool pprof -top shows the text report's top function and flat share", "[integration]") {
  TempDir dir;
  const std::string rec = record(dir, {program("known_stack_O2_fp"), "leaf", "0.5"}, "leaf.swprof");
  const std::string prof = report_pprof(dir, rec, "leaf.pb.gz");
  auto text = run({swprof_bin(), "report", rec}, dir.path());
  REQUIRE(text.exit_code == 0);
  const TopRow ours = first_text_row(text.out);
  CHECK(ours.function == "leaf");

  const TopRow by_samples = first_top_row(go_pprof(dir, {"-top", "-sample_index=samples", prof}).out);
  CHECK(by_samples.function == ours.function);
  CHECK(std::abs(by_samples.flat_percent - ours.flat_percent) < 0.01);
  // The default sample type is cpu time: each sample weighs its period.
  const ProcessResult top = go_pprof(dir, {"-top", prof});
  CHECK(top.out.find("Type: cpu") != std::string::npos);
  const TopRow by_time = first_top_row(top.out);
  CHECK(by_time.function == ours.function);
  CHECK(std::abs(by_time.flat_percent - ours.flat_percent) < 1.0);
}

TEST_CASE("report pprof: -raw shows inline frames as lines of one location, line numbers, thread labels",
          "[integration]") {
  TempDir dir;
  const std::string rec = record(dir, {program("known_inline"), "0.4"}, "inline.swprof");
  const std::string prof = report_pprof(dir, rec, "inline.pb.gz");
  const std::string raw = go_pprof(dir, {"-raw", prof}).out;
  INFO(raw);
  const std::string source = std::string(SYM_SOURCE_DIR) + "/known_inline.c";
  // A location line is "ID: ADDRESS M=MAPPING FUNCTION FILE:LINE s=START";
  // the lines of the functions it is inlined into follow, one per line. The
  // file is the path DWARF has (relative under ccache): its end is checked.
  const size_t at = raw.find(" spin_inlined ");
  REQUIRE(at != std::string::npos);
  std::istringstream first(raw.substr(at)), second(raw.substr(raw.find('\n', at) + 1));
  std::string function, where, caller, caller_where;
  first >> function >> where;
  second >> caller >> caller_where;
  const auto ends_with = [](const std::string& s, const std::string& end) {
    return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
  };
  // Each at the line of its address: the loop in spin_inlined, the call in
  // spin_caller it was inlined at.
  CHECK(ends_with(where, "known_inline.c:" + std::to_string(marked_line(source, "@spin-loop"))));
  CHECK(caller == "spin_caller");
  CHECK(ends_with(caller_where, "known_inline.c:" + std::to_string(marked_line(source, "@spin-call"))));
  CHECK(raw.find("samples/count cpu/nanoseconds") != std::string::npos);
  CHECK(raw.find("thread:[known_inline]") != std::string::npos);
  CHECK(raw.find("thread_id:[") != std::string::npos);

  // Decoded: the hottest stack is spin_inlined in spin_caller in main.
  const pb::Profile p = read_pprof(read_file(prof));
  const auto stacks = samples_by_stack(p);
  int64_t total = 0, inline_stack = 0;
  for (const auto& [stack, n] : stacks) {
    total += n;
    if (stack.rfind("spin_inlined;spin_caller;main;", 0) == 0) inline_stack += n;
  }
  CHECK(inline_stack > total * 8 / 10);
  // The main program's mapping comes first, with its path and build-id.
  REQUIRE(p.mapping_size() > 0);
  CHECK(pprof_string(p, p.mapping(0).filename()) == program("known_inline"));
  CHECK(pprof_string(p, p.mapping(0).build_id()).size() == 40);
  CHECK(p.mapping(0).memory_limit() > p.mapping(0).memory_start());
  std::vector<std::string> comments;
  for (int64_t c : p.comment()) comments.push_back(pprof_string(p, c));
  CHECK(std::count(comments.begin(), comments.end(), "command: " + program("known_inline") + " 0.4") == 1);
}

TEST_CASE("report pprof: from a JSON profile, the same stacks as from its recording", "[integration]") {
  TempDir dir;
  const std::string rec = record(dir, {program("known_stack_O2_fp"), "threads", "0.3"}, "threads.swprof");
  auto json = run({swprof_bin(), "report", rec, "-f", "json", "-o", dir.file("p.json")}, dir.path());
  REQUIRE(json.exit_code == 0);
  const pb::Profile from_recording = read_pprof(read_file(report_pprof(dir, rec, "rec.pb.gz")));
  const pb::Profile from_json = read_pprof(read_file(report_pprof(dir, dir.file("p.json"), "json.pb.gz")));
  CHECK(samples_by_stack(from_json) == samples_by_stack(from_recording));
  CHECK(from_json.duration_nanos() == from_recording.duration_nanos());
  // Four threads, each labelled: thread_id labels tell them apart.
  std::set<int64_t> tids;
  for (const auto& s : from_recording.sample())
    for (const auto& l : s.label())
      if (pprof_string(from_recording, l.key()) == "thread_id") tids.insert(l.num());
  CHECK(tids.size() >= 4);
}

TEST_CASE("report pprof: off-CPU and wall profiles give their time as the sample type", "[integration]") {
  if (!swprof::kernel_sampling_permitted()) {
    WARN("off-CPU sampling needs kernel sampling (perf_event_paranoid <= 1, CAP_PERFMON or root); skipped");
    return;
  }
  TempDir dir;
  const std::string rec = record(dir, {program("known_waits"), "30"}, "wall.swprof", {"--wall"});
  const std::string wall = report_pprof(dir, rec, "wall.pb.gz");
  const std::string off = report_pprof(dir, rec, "off.pb.gz", {"--weight", "off-cpu"});
  CHECK(go_pprof(dir, {"-raw", wall}).out.find("samples/count wall/nanoseconds") != std::string::npos);
  const ProcessResult top = go_pprof(dir, {"-top", off});
  CHECK(top.out.find("Type: off-cpu") != std::string::npos);
  // The worker's waits: nanosleep and the pipe read are off-CPU time.
  const pb::Profile p = read_pprof(read_file(off));
  int64_t nap = 0, total = 0;
  for (const auto& s : p.sample()) {
    total += s.value(1);
    for (const auto& name : pprof_stack(p, s))
      if (name == "nap") nap += s.value(1);
  }
  CHECK(nap > 0);
  CHECK(nap < total);
}

TEST_CASE("report pprof: refuses to write its binary output to a terminal", "[cli]") {
  TempDir dir;
  const std::string profile = std::string(GOLDEN_DIR) + "/report/profile.json";
  // python3's pty module runs swprof with a terminal as its standard output.
  const std::string spawn = "import os, pty, sys; sys.exit(os.waitstatus_to_exitcode(pty.spawn(sys.argv[1:])))";
  auto tty = run({"/usr/bin/python3", "-c", spawn, swprof_bin(), "report", profile, "-f", "pprof"}, dir.path());
  CHECK(tty.exit_code == 2);
  CHECK(tty.out.find("pprof output is binary: write it to a file with -o FILE") != std::string::npos);
  // Redirected, or with -o, it is written.
  auto redirected = run({swprof_bin(), "report", profile, "-f", "pprof"}, dir.path());
  CHECK(redirected.exit_code == 0);
  CHECK(read_pprof(redirected.out).sample_size() > 0);
}

TEST_CASE("report pprof: addresses: -list, -disasm, -lines and -peek find the hot line and its instruction",
          "[integration]") {
  TempDir dir;
  // known_hot_line is position-independent: loaded at a random base, its
  // addresses in the profile are still the binary's own.
  const std::string rec = record(dir, {program("known_hot_line")}, "hot.swprof");
  const std::string prof = report_pprof(dir, rec, "hot.pb.gz");
  const std::string hot = std::to_string(marked_line(std::string(SYM_SOURCE_DIR) + "/known_hot_line.c", "@hot-line"));

  const std::string list =
      go_pprof(dir, {"-list", "hash_buf", "-sample_index=samples", "-source_path", SYM_SOURCE_DIR, prof}).out;
  INFO(list);
  const std::vector<ListingRow> lines = listing_rows(list);
  REQUIRE_FALSE(lines.empty());
  CHECK(lines[hottest_row(lines)].key == hot);
  CHECK(lines[hottest_row(lines)].text.find("@hot-line") != std::string::npos);

  // -disasm reads the instructions from the binary, by its symbols' addresses.
  const std::string disasm = go_pprof(dir, {"-disasm", "hash_buf", "-sample_index=samples", prof}).out;
  INFO(disasm);
  const std::vector<ListingRow> insns = listing_rows(disasm);
  size_t div = insns.size();
  for (size_t i = 0; i < insns.size(); ++i)
    if (insns[i].text.rfind("DIV", 0) == 0) div = i;
  REQUIRE(div < insns.size());
  const size_t hottest = hottest_row(insns);
  CHECK(hottest >= div);
  CHECK(hottest <= div + 3);

  const TopRow top_line = first_top_row(go_pprof(dir, {"-lines", "-top", "-sample_index=samples", prof}).out);
  CHECK(top_line.function.rfind("hash_buf ", 0) == 0);
  CHECK(top_line.function.size() > hot.size());
  CHECK(top_line.function.substr(top_line.function.size() - hot.size() - 17) == "known_hot_line.c:" + hot);

  const std::string peek = go_pprof(dir, {"-peek", "hash_buf", prof}).out;
  INFO(peek);
  CHECK(peek.find("| hash_buf") != std::string::npos);
  CHECK(peek.find("|   run") != std::string::npos);
}
