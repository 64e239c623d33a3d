// Golden files for the report formats: `swprof report` on a fixed profile of
// the known-stack program (tests/golden/report/profile.json, recorded once,
// with host, paths and pids normalized), and on a wall-time profile of the
// known_waits pattern (wall-profile.json, written by make_wall_profile.py),
// compared byte for byte.
// pprof is binary: its golden files hold the decoded message in protobuf text
// format (tests/support/pprof_text.h).
// SWPROF_UPDATE_GOLDEN=1 rewrites the expected files.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "support/cli_harness.h"
#include "support/pprof_text.h"
#include "support/read_file.h"
#include "support/scoped_env.h"
#include "support/temp_dir.h"

using namespace swprof::testing;

namespace {

// `swprof report` of `input` with `args`: its standard output.
std::string report_output(const std::vector<std::string>& args, const std::string& input) {
  const std::string dir = std::string(GOLDEN_DIR) + "/report";
  std::vector<std::string> argv = {swprof_bin(), "report", dir + "/" + input};
  argv.insert(argv.end(), args.begin(), args.end());
  TempDir scratch;
  const ScopedEnv whole_lines("COLUMNS", std::nullopt);  // the text report's width follows COLUMNS
  auto r = run(argv, scratch.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

void compare_golden(const std::string& out, const std::string& expected_name) {
  const std::string expected_path = std::string(GOLDEN_DIR) + "/report/" + expected_name;
  if (std::getenv("SWPROF_UPDATE_GOLDEN")) std::ofstream(expected_path, std::ios::binary) << out;
  const std::string expected = read_file(expected_path);
  REQUIRE_FALSE(expected.empty());
  CHECK(out == expected);
}

void check_golden(const std::vector<std::string>& args, const std::string& expected_name,
                  const std::string& input = "profile.json") {
  compare_golden(report_output(args, input), expected_name);
}

}  // namespace

TEST_CASE("golden: text report") { check_golden({}, "expected.txt"); }
TEST_CASE("golden: text report, whole tree") { check_golden({"--min-percent", "0", "--top", "5"}, "expected-all.txt"); }
TEST_CASE("golden: text report in 80 columns and 14 levels") {
  check_golden({"--min-percent", "0", "--top", "5", "--width", "80", "--tree-depth", "14"}, "expected-80.txt");
}
TEST_CASE("golden: folded") { check_golden({"-f", "folded"}, "expected.folded"); }
TEST_CASE("golden: folded with modules") { check_golden({"-f", "folded", "--modules"}, "expected-modules.folded"); }
TEST_CASE("golden: json") { check_golden({"-f", "json"}, "expected.json"); }
TEST_CASE("golden: speedscope") { check_golden({"-f", "speedscope"}, "expected.speedscope.json"); }

TEST_CASE("golden: text report, wall time") { check_golden({}, "expected-wall.txt", "wall-profile.json"); }
TEST_CASE("golden: folded, wall time") { check_golden({"-f", "folded"}, "expected-wall.folded", "wall-profile.json"); }
TEST_CASE("golden: json, wall time") { check_golden({"-f", "json"}, "expected-wall.json", "wall-profile.json"); }
TEST_CASE("golden: speedscope, wall time") {
  check_golden({"-f", "speedscope"}, "expected-wall.speedscope.json", "wall-profile.json");
}

TEST_CASE("golden: pprof") {
  compare_golden(pprof_text(report_output({"-f", "pprof"}, "profile.json")), "expected.pprof.txt");
}
TEST_CASE("golden: pprof, wall time") {
  compare_golden(pprof_text(report_output({"-f", "pprof"}, "wall-profile.json")), "expected-wall.pprof.txt");
}
