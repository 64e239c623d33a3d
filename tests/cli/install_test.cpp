// Installing swprof (cmake/Install.cmake): `cmake --install` into a
// temporary prefix, and the .deb cpack makes from this build, inspected with
// dpkg-deb and unpacked into a temporary folder (never installed on this
// machine). Either way the installed binary records and reports a program
// with a known stack, and nothing of the tests, benchmarks or fuzzers is in.

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "support/cli_harness.h"
#include "support/read_file.h"
#include "support/temp_dir.h"
#include "support/test_scale.h"

using namespace swprof::testing;
namespace fs = std::filesystem;

namespace {

// Files under `root`, relative to it.
std::set<std::string> files_under(const std::string& root) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (!e.is_directory()) out.insert(fs::relative(e.path(), root).string());
  return out;
}

// The manual's pages under docs/, which README.md and each other link to:
// the index, a page per command, a page per topic, the file formats.
const char* const kManualPages[] = {
    "README.md",
    "record.md", "report.md", "flamegraph.md", "diff.md", "merge.md", "dump.md", "script.md", "info.md", "archive.md",
    "off-cpu.md", "containers.md", "perf-data.md", "unwinding.md", "output-files.md", "ci.md",
    "recordings-that-travel.md", "exit-codes.md", "development.md",
    "recording-format.md", "json-format.md", "json-format.schema.json", "diff-format.md", "pprof-format.md",
    "archive-format.md"};

// What `prefix` must hold: the binary, completion, man page and docs only.
void check_installed_files(const std::set<std::string>& files) {
  for (const char* f : {"bin/swprof", "share/bash-completion/completions/swprof", "share/man/man1/swprof.1",
                        "share/doc/swprof/README.md"})
    CHECK(files.count(f) == 1);
  for (const char* page : kManualPages) {
    INFO(page);
    CHECK(files.count(std::string("share/doc/swprof/docs/") + page) == 1);
  }
  for (const auto& f : files) {
    INFO(f);
    const bool expected = f == "bin/swprof" || f == "share/bash-completion/completions/swprof" ||
                          f == "share/man/man1/swprof.1" || f.rfind("share/doc/swprof/", 0) == 0;
    CHECK(expected);
  }
}

// The installed binary gives the build's version line and profiles a
// program: main -> a -> b -> c -> leaf.
void check_runs(const std::string& installed, const TempDir& dir) {
  const ProcessResult version = run({installed, "--version"}, dir.path());
  CHECK(version.exit_code == 0);
  CHECK(version.out == run({swprof_bin(), "--version"}, dir.path()).out);
  const std::string rec = dir.file("installed.swprof");
  const ProcessResult recorded =
      run({installed, "record", "-F", "999", "-o", rec, "--", std::string(KNOWN_STACK_DIR) + "/known_stack_O2_fp", "leaf",
           "0.3"},
          dir.path());
  INFO(recorded.err);
  REQUIRE(recorded.exit_code == 0);
  const ProcessResult report = run({installed, "report", rec, "-f", "folded"}, dir.path());
  INFO(report.err);
  CHECK(report.exit_code == 0);
  CHECK(report.out.find(";a;b;c;leaf ") != std::string::npos);
}

std::string build_dir() { return swprof_bin().substr(0, swprof_bin().rfind('/')); }

// The installed README and docs/ are the source tree's, byte for byte, and
// docs/ holds nothing else, so the links between the pages resolve.
void check_manual_as_in_source(const std::string& doc_dir) {
  const std::string source(SWPROF_SOURCE_DIR);
  CHECK(read_file(doc_dir + "/README.md") == read_file(source + "/README.md"));
  const std::set<std::string> pages = files_under(source + "/docs");
  CHECK(files_under(doc_dir + "/docs") == pages);
  for (const auto& page : pages) {
    INFO(page);
    CHECK(read_file(doc_dir + "/docs/" + page) == read_file(source + "/docs/" + page));
  }
}

}  // namespace

TEST_CASE("install: cmake --install puts the binary, completion, man page and docs under the prefix", "[integration]") {
  TempDir dir;
  const std::string prefix = dir.file("prefix");
  const ProcessResult r = run({CMAKE_COMMAND_PATH, "--install", build_dir(), "--prefix", prefix}, dir.path());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  check_installed_files(files_under(prefix));
  check_manual_as_in_source(prefix + "/share/doc/swprof");
  check_runs(prefix + "/bin/swprof", dir);
}

TEST_CASE("install: the .deb holds the same files under /usr, says its dependencies, and its swprof runs",
          "[integration]") {
  if (kSanitizedBuild) {
    // Packaging is the same in every build; the sanitizer build's swprof is several times larger,
    // and packing it into a .deb took 50 s of the sanitizer run for nothing the normal build misses.
    WARN("the .deb is checked in the normal build");
    return;
  }
  TempDir dir;
  const std::string packages = dir.file("packages");
  const ProcessResult cpack =
      run({CPACK_COMMAND_PATH, "-G", "DEB", "--config", build_dir() + "/CPackConfig.cmake", "-B", packages}, dir.path(), 300);
  INFO(cpack.out << cpack.err);
  REQUIRE(cpack.exit_code == 0);
  std::string deb;
  for (const auto& e : fs::directory_iterator(packages))
    if (e.path().extension() == ".deb") deb = e.path().string();
  REQUIRE(!deb.empty());
  CHECK(fs::path(deb).filename().string().rfind(std::string("swprof_") + SWPROF_VERSION + "_", 0) == 0);

  const ProcessResult info = run({"/usr/bin/dpkg-deb", "-I", deb}, dir.path());
  INFO(info.out);
  CHECK(info.exit_code == 0);
  CHECK(info.out.find(" Package: swprof\n") != std::string::npos);
  CHECK(info.out.find(std::string(" Version: ") + SWPROF_VERSION + "\n") != std::string::npos);
  CHECK(info.out.find(" Maintainer: ") != std::string::npos);
  CHECK(info.out.find(" Description: sampling profiler for native Linux programs") != std::string::npos);
  for (const char* library : {"libdw1", "libelf1", "libzstd1", "libcapstone4", "libunwind8", "libre2-9", "libc6"})
    CHECK(info.out.find(library) != std::string::npos);

  const ProcessResult contents = run({"/usr/bin/dpkg-deb", "-c", deb}, dir.path());
  CHECK(contents.exit_code == 0);
  for (const char* f : {"./usr/bin/swprof", "./usr/share/man/man1/swprof.1", "./usr/share/bash-completion/completions/swprof",
                        "./usr/share/doc/swprof/README.md", "./usr/share/doc/swprof/docs/record.md",
                        "./usr/share/doc/swprof/docs/README.md"})
    CHECK(contents.out.find(std::string(f) + "\n") != std::string::npos);

  const std::string root = dir.file("root");
  REQUIRE(run({"/usr/bin/dpkg-deb", "-x", deb, root}, dir.path()).exit_code == 0);
  check_installed_files(files_under(root + "/usr"));
  CHECK(files_under(root).size() == files_under(root + "/usr").size());  // nothing outside /usr
  check_manual_as_in_source(root + "/usr/share/doc/swprof");
  check_runs(root + "/usr/bin/swprof", dir);
}
