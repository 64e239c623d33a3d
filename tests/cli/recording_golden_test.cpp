// Golden files that start from a stored recording (perfparser's style):
// `swprof report` on tests/golden/recording/known_tiny.swprof, a recording
// of a program without libc that carries the program itself as an image
// record, so every machine and every checkout unwinds and names the same
// frames (no kernel frames: the stored samples have none). The outputs are
// compared byte for byte; SWPROF_UPDATE_GOLDEN=1 rewrites them. The hidden
// test "[.make-recording]" below made the recording (README.md there).

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>

#include "support/cli_harness.h"
#include "support/portable_recording.h"
#include "support/pprof_text.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof::testing;

namespace {

std::string recording_dir() { return std::string(GOLDEN_DIR) + "/recording"; }

// The report's text with this checkout's folder written as "<golden>".
std::string without_checkout(std::string text) {
  const std::string dir = GOLDEN_DIR;
  for (size_t at = text.find(dir); at != std::string::npos; at = text.find(dir, at))
    text.replace(at, dir.size(), "<golden>");
  return text;
}

// `swprof COMMAND known_tiny.swprof ARGS...`'s output; `decode` turns it
// into the text compared (pprof's binary into its text form).
void check_command(const std::string& command, const std::vector<std::string>& args, const std::string& expected_name,
                   std::string (*decode)(const std::string&) = nullptr) {
  std::vector<std::string> argv = {swprof_bin(), command, recording_dir() + "/known_tiny.swprof"};
  argv.insert(argv.end(), args.begin(), args.end());
  TempDir scratch;
  auto r = run(argv, scratch.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string out = without_checkout(decode ? decode(r.out) : r.out);
  const std::string expected_path = recording_dir() + "/" + expected_name;
  if (std::getenv("SWPROF_UPDATE_GOLDEN")) std::ofstream(expected_path, std::ios::binary) << out;
  const std::string expected = read_file(expected_path);
  REQUIRE_FALSE(expected.empty());
  CHECK(out == expected);
  // Nothing was looked up on this machine: no warnings about binaries.
  CHECK(r.err.find("cannot open") == std::string::npos);
  CHECK(r.err.find("is missing") == std::string::npos);
}

void check_report(const std::vector<std::string>& args, const std::string& expected_name) {
  check_command("report", args, expected_name);
}

}  // namespace

TEST_CASE("golden: stored recording: text report") { check_report({}, "expected.txt"); }
TEST_CASE("golden: stored recording: folded") { check_report({"-f", "folded"}, "expected.folded"); }
TEST_CASE("golden: stored recording: folded with modules") {
  check_report({"-f", "folded", "--modules"}, "expected-modules.folded");
}
TEST_CASE("golden: stored recording: json") { check_report({"-f", "json"}, "expected.json"); }
// Every sampled address a location, at the binary's own addresses.
TEST_CASE("golden: stored recording: pprof") { check_command("report", {"-f", "pprof"}, "expected.pprof.txt", pprof_text); }
// The recorded image has no DWARF: instructions without lines.
TEST_CASE("golden: stored recording: annotate") { check_command("annotate", {"spin"}, "expected-annotate.txt"); }
TEST_CASE("golden: stored recording: annotate json") {
  check_command("annotate", {"spin", "-f", "json"}, "expected-annotate.json");
}
TEST_CASE("golden: stored recording: a copy in another folder reports the same") {
  TempDir scratch;
  const std::string copy = scratch.file("copy.swprof");
  std::ofstream(copy, std::ios::binary) << read_file(recording_dir() + "/known_tiny.swprof");
  auto r = run({swprof_bin(), "report", "-f", "folded", copy}, scratch.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == read_file(recording_dir() + "/expected.folded"));
}

// Not run by ctest (hidden): makes the stored recording from a fresh one.
//   SWPROF_PORTABLE_INPUT=raw.swprof SWPROF_PORTABLE_PROGRAM=/abs/path/of/known_tiny
//   SWPROF_PORTABLE_OUTPUT=tests/golden/recording/known_tiny.swprof
//   build/tests/swprof_cli_tests "[.make-recording]"
// (one command line; tests/golden/recording/README.md has the recipe).
TEST_CASE("make the stored golden recording from a recording", "[.make-recording]") {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  PortableRequest request;
  request.input = env("SWPROF_PORTABLE_INPUT");
  request.output = env("SWPROF_PORTABLE_OUTPUT");
  request.program_path = env("SWPROF_PORTABLE_PROGRAM");
  request.image_name = "known_tiny";
  REQUIRE_FALSE(request.input.empty());
  REQUIRE_FALSE(request.output.empty());
  REQUIRE_FALSE(request.program_path.empty());
  const PortableResult result = make_portable_recording(request);
  WARN("kept " << result.samples << " samples, dropped " << result.dropped);
  REQUIRE(result.samples > 0);
}
