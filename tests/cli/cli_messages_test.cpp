// What the command line says about mistakes: numeric options out of range,
// misspelt commands and options. Each is one line on stderr, exit code 2.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/cli_harness.h"
#include "support/temp_dir.h"

using namespace swprof::testing;
namespace fs = std::filesystem;

namespace {

// Runs swprof with `args` in a fresh directory and checks the one-line
// failure containing `expected`; nothing may be written there.
void check_refused(const std::vector<std::string>& args, const std::string& expected) {
  TempDir dir;
  std::vector<std::string> argv = {swprof_bin()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run(argv, dir.path());
  INFO("args: " << (args.empty() ? std::string() : args.front()) << " ... stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find(expected) != std::string::npos);
  CHECK(r.out.empty());
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir.path()))
    entries += e.path().filename().string().rfind("proc", 0) == 0 ? 0 : 1;  // the harness's capture files
  CHECK(entries == 0);
}

}  // namespace

TEST_CASE("cli: diff options that would switch the gate off are refused", "[integration]") {
  check_refused({"diff", "--threshold", "nan", "a", "b"}, "invalid --threshold 'nan': expected a finite number >= 0");
  check_refused({"diff", "--min-z", "nan", "a", "b"}, "invalid --min-z 'nan': expected a finite number >= 0");
  check_refused({"diff", "--min-share", "nan", "a", "b"},
                "invalid --min-share 'nan': expected a finite number between 0 and 100");
  check_refused({"diff", "--min-samples", "-1", "a", "b"}, "invalid --min-samples '-1': expected a whole number");
  check_refused({"diff", "--threshold", "inf", "a", "b"}, "invalid --threshold 'inf'");
  check_refused({"diff", "--threshold", "5%", "a", "b"}, "invalid --threshold '5%'");
  check_refused({"diff", "--top", "-1", "a", "b"}, "invalid --top '-1'");
}

TEST_CASE("cli: numeric options of report, flamegraph, info and script are checked", "[integration]") {
  check_refused({"report", "-j", "100000"}, "invalid --threads '100000': expected a whole number between 0 and 256");
  check_refused({"info", "--threads", "-1"}, "invalid --threads '-1'");
  check_refused({"script", "--max-depth", "0"}, "invalid --max-depth '0': expected a whole number between 1 and 100000");
  check_refused({"report", "--min-percent", "nan"}, "invalid --min-percent 'nan': expected a finite number between 0 and 100");
  check_refused({"flamegraph", "--min-percent", "101"}, "invalid --min-percent '101'");
  check_refused({"report", "--top", "2.5"}, "invalid --top '2.5': expected a whole number");
  check_refused({"report", "--from", "nan"}, "invalid --from 'nan': expected a finite number >= 0");
  check_refused({"flamegraph", "--to", "inf"}, "invalid --to 'inf'");
}

TEST_CASE("cli: numeric options of record and attach are checked", "[integration]") {
  check_refused({"attach", "--duration", "inf", "1"},
                "invalid --duration 'inf': expected a finite number > 0 and <= 31536000");
  check_refused({"attach", "--duration", "1e300", "1"}, "invalid --duration '1e300'");
  check_refused({"attach", "--duration", "0", "1"}, "invalid --duration '0'");
  check_refused({"attach", "nan"}, "invalid PID 'nan'");
  check_refused({"record", "-F", "nan", "true"}, "invalid -F 'nan'");
  check_refused({"record", "-c", "-1", "true"}, "invalid -c '-1'");
  check_refused({"record", "--stack-size", "inf", "true"}, "invalid --stack-size 'inf'");
  check_refused({"record", "--buffer-size", "nan", "true"}, "invalid --buffer-size 'nan'");
}

TEST_CASE("cli: valid numeric options are accepted", "[integration]") {
  // The options pass; what fails is the missing input file.
  check_refused({"report", "--min-percent", "1.5", "--top", "3", "-j", "2", "--max-depth", "64", "--from", "0.5", "--to",
                 "1e1", "missing.swprof"},
                "cannot open 'missing.swprof'");
  check_refused({"diff", "--threshold", "2.5", "--min-z", "3", "--min-share", "0", "--min-samples", "0", "missing-a",
                 "missing-b"},
                "cannot open 'missing-a'");
}

TEST_CASE("cli: an unknown command is named, with the closest one", "[integration]") {
  check_refused({"recrod", "./app"}, "unknown command 'recrod' (did you mean record?); see swprof --help");
  check_refused({"flamegrpah"}, "unknown command 'flamegrpah' (did you mean flamegraph?)");
  TempDir dir;
  auto r = run({swprof_bin(), "frobnicate"}, dir.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown command 'frobnicate'; see swprof --help") != std::string::npos);  // nothing close
  check_refused({}, "no command given: use one of record, attach");
}

TEST_CASE("cli: an unknown option is named, with the closest one and its command's help", "[integration]") {
  check_refused({"report", "--formt", "json", "FILE"},
                "unknown option --formt (did you mean --format?); see swprof report --help");
  check_refused({"record", "--stak-size", "4096", "./app"},
                "unknown option --stak-size (did you mean --stack-size?); see swprof record --help");
  check_refused({"diff", "--treshold=5", "a", "b"}, "unknown option --treshold (did you mean --threshold?)");
  check_refused({"record", "-x", "./app"}, "unknown option -x; see swprof record --help");
  check_refused({"--verison"}, "unknown option --verison (did you mean --version?); see swprof --help");
  // The report's valid file is not blamed.
  TempDir dir;
  auto r = run({swprof_bin(), "report", "--formt", "json", "FILE"}, dir.path());
  CHECK(r.err.find("FILE") == std::string::npos);
}

TEST_CASE("cli: record's options end at the command, whose own options are its own", "[integration]") {
  TempDir dir;
  // "-x" after the command name belongs to the command (sh -c ... -x is an argument of sh).
  auto r = run({swprof_bin(), "record", "-o", dir.file("ok.swprof"), "/bin/sh", "-c", "exit 3", "-x"}, dir.path());
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK(fs::exists(dir.file("ok.swprof")));
}

TEST_CASE("cli: a ring buffer too small for one sample is refused with the minimum", "[integration]") {
  check_refused({"record", "--buffer-size", "8K", "true"},
                "invalid --buffer-size 8K: with --stack-size 32768 a sample takes up to 34088 bytes");
  check_refused({"record", "--buffer-size", "64K", "--stack-size", "32768", "true"}, "use --buffer-size 256K or more");
}

// swprof reads perf.data files now (tests/cli/perf_data_test.cpp feeds real
// ones to every command); a damaged one is named as such.
TEST_CASE("cli: a damaged perf.data file is named as such by every command, without its bytes", "[integration]") {
  TempDir dir;
  const std::string perf_data = dir.file("perf.data");
  {
    std::ofstream out(perf_data, std::ios::binary);
    out << "PERFILE2";
    for (int i = 0; i < 256; ++i) out.put(static_cast<char>(i));  // control characters and all
  }
  const std::vector<std::vector<std::string>> commands = {
      {"report", perf_data}, {"flamegraph", perf_data, "-o", dir.file("f.html")}, {"info", perf_data},
      {"script", perf_data}, {"diff", perf_data, perf_data},   {"merge", perf_data}};
  for (const auto& args : commands) {
    std::vector<std::string> argv = {swprof_bin()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run(argv, dir.path());
    INFO(args.front() << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find("perf.data file '" + perf_data + "' has a damaged header") != std::string::npos);
    bool control = false;
    for (char c : r.err) control = control || (static_cast<unsigned char>(c) < 0x20 && c != '\n');
    CHECK_FALSE(control);
    CHECK(r.out.empty());
  }
  CHECK_FALSE(fs::exists(dir.file("f.html")));
}
