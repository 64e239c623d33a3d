// What report, flamegraph, diff and merge print on stderr while loading their
// inputs (cli/profile_loader.cpp): one summary line per recording, its
// warnings, and the debuginfod choice applied once per command.

#include <catch2/catch.hpp>
#include <sstream>

#include "support/cli_harness.h"
#include "support/temp_dir.h"
#include "support/thread_recording.h"

using namespace swprof::testing;

namespace {

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("loading: a summary line per recording, with the samples kept by the filters", "[profile_loader]") {
  TempDir dir;
  const std::string recording = dir.file("threads.swprof");
  write_thread_recording(recording);
  const auto r = run({swprof_bin(), "report", "-f", "folded", "--tid", "101", "-o", dir.file("out.folded"), recording},
                     dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.rfind("swprof report: 4 samples (2 kept) in ", 0) == 0);
  CHECK(occurrences(r.err, "swprof report:") == 1);
}

TEST_CASE("loading: --debuginfod without servers warns once per command, however many inputs", "[profile_loader]") {
  TempDir dir;
  const std::string a = dir.file("a.swprof"), b = dir.file("b.swprof");
  write_thread_recording(a);
  write_thread_recording(b);
  const auto r = run({"/usr/bin/env", "-u", "DEBUGINFOD_URLS", swprof_bin(), "merge", "--debuginfod", a, b, "-o",
                      dir.file("merged.json")},
                     dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(occurrences(r.err, "DEBUGINFOD_URLS is not set") == 1);
  CHECK(occurrences(r.err, "swprof merge: 4 samples") == 2);
}

TEST_CASE("loading: a JSON profile prints no summary line", "[profile_loader]") {
  TempDir dir;
  const std::string recording = dir.file("threads.swprof"), json = dir.file("p.json");
  write_thread_recording(recording);
  REQUIRE(run({swprof_bin(), "report", "-f", "json", "-o", json, recording}, dir.path()).exit_code == 0);
  const auto r = run({"/usr/bin/env", "-u", "DEBUGINFOD_URLS", swprof_bin(), "report", "--debuginfod", "-o",
                      dir.file("out.txt"), json},
                     dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
}
