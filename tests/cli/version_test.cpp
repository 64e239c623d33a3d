// `swprof --version`: one line a user can put in a bug report, with the git
// commit when the build knows it (cmake/version_script.cmake).

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "support/cli_harness.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof::testing;

namespace {

// The line the version script writes for `source` (a folder).
std::string version_line_of(const std::string& source, const TempDir& dir) {
  const std::string out = dir.file("version_line.cpp");
  const ProcessResult r = run({CMAKE_COMMAND_PATH, "-DSOURCE_DIR=" + source, "-DVERSION=9.8.7", "-DOUTPUT=" + out, "-P",
                               std::string(SWPROF_SOURCE_DIR) + "/cmake/version_script.cmake"},
                              dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string text = read_file(out);
  const size_t start = text.find("kVersionLine = \"");
  REQUIRE(start != std::string::npos);
  return text.substr(start + 16, text.find("\";", start) - start - 16);
}

ProcessResult git(const std::string& repo, std::vector<std::string> args) {
  std::vector<std::string> argv = {"/usr/bin/git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, repo);
}

}  // namespace

TEST_CASE("version: one line, swprof VERSION and the git commit it was built from", "[integration]") {
  TempDir dir;
  const ProcessResult r = run({swprof_bin(), "--version"}, dir.path());
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  INFO(r.out);
  const bool from_git = std::filesystem::exists(std::string(SWPROF_SOURCE_DIR) + "/.git");
  const std::string commit = from_git ? " \\(git [0-9a-zA-Z._-]+\\)" : "";
  CHECK(std::regex_match(r.out, std::regex("swprof " + std::string(SWPROF_VERSION) + commit + "\n")));
}

TEST_CASE("version: the commit comes from git describe, and a tree without .git has the version alone", "[integration]") {
  TempDir dir;
  const std::string tree = dir.file("tree");
  std::filesystem::create_directory(tree);
  std::ofstream(tree + "/file.txt") << "one\n";
  CHECK(version_line_of(tree, dir) == "swprof 9.8.7");

  REQUIRE(git(tree, {"init", "-q"}).exit_code == 0);
  REQUIRE(git(tree, {"add", "file.txt"}).exit_code == 0);
  REQUIRE(git(tree, {"commit", "-q", "-m", "one"}).exit_code == 0);
  std::string head = git(tree, {"rev-parse", "--short", "HEAD"}).out;
  head = head.substr(0, head.find('\n'));
  REQUIRE(!head.empty());
  CHECK(version_line_of(tree, dir) == "swprof 9.8.7 (git " + head + ")");
  std::ofstream(tree + "/file.txt") << "two\n";
  CHECK(version_line_of(tree, dir) == "swprof 9.8.7 (git " + head + "-dirty)");
}
