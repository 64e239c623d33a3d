// Golden files for the report formats: `swprof report` on a fixed profile of
// the known-stack program (tests/golden/report/profile.json, recorded once,
// with host, paths and pids normalized), and on a wall-time profile of the
// known_waits pattern (wall-profile.json, written by make_wall_profile.py),
// compared byte for byte.
// SWPROF_UPDATE_GOLDEN=1 rewrites the expected files.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "support/cli_harness.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof::testing;

namespace {

void check_golden(const std::vector<std::string>& args, const std::string& expected_name,
                  const std::string& input = "profile.json") {
  const std::string dir = std::string(GOLDEN_DIR) + "/report";
  std::vector<std::string> argv = {swprof_bin(), "report", dir + "/" + input};
  argv.insert(argv.end(), args.begin(), args.end());
  TempDir scratch;
  auto r = run(argv, scratch.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string expected_path = dir + "/" + expected_name;
  if (std::getenv("SWPROF_UPDATE_GOLDEN")) std::ofstream(expected_path, std::ios::binary) << r.out;
  const std::string expected = read_file(expected_path);
  REQUIRE_FALSE(expected.empty());
  CHECK(r.out == expected);
}

}  // namespace

TEST_CASE("golden: text report") { check_golden({}, "expected.txt"); }
TEST_CASE("golden: text report, whole tree") { check_golden({"--min-percent", "0", "--top", "5"}, "expected-all.txt"); }
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
