#include "output/source_files.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

void write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("source files: the path DWARF names, its lines without their line ends", "[source_files]") {
  TempDir dir;
  write(dir.file("src/a.c"), "int main() {\r\n  return 0;\n}");
  SourceFiles files({});
  const std::vector<std::string>* lines = files.lines(dir.file("src/a.c"));
  REQUIRE(lines);
  CHECK(*lines == std::vector<std::string>{"int main() {", "  return 0;", "}"});
  CHECK(files.found(dir.file("src/a.c")) == dir.file("src/a.c"));
  CHECK(files.lines(dir.file("src/missing.c")) == nullptr);
  CHECK(files.found(dir.file("src/missing.c")).empty());
  CHECK(files.lines("") == nullptr);
}

TEST_CASE("source files: a moved tree through --prefix-map, at a folder boundary only", "[source_files]") {
  TempDir dir;
  write(dir.file("now/lib/b.c"), "moved\n");
  write(dir.file("nowhere/lib/b.c"), "wrong\n");
  SourceFiles files({{{"/build/src", dir.file("now")}}, {}});
  const std::vector<std::string>* lines = files.lines("/build/src/lib/b.c");
  REQUIRE(lines);
  CHECK(lines->front() == "moved");
  // "/build/src" does not start "/build/srcs/...".
  SourceFiles other({{{"/build/src", dir.file("now")}}, {}});
  CHECK(other.lines("/build/srcs/lib/b.c") == nullptr);
}

TEST_CASE("source files: under --source-dir, the whole path, then each shorter tail of it", "[source_files]") {
  TempDir dir;
  write(dir.file("checkout/tests/programs/c.c"), "deep\n");
  write(dir.file("flat/d.c"), "flat\n");
  SourceFiles files({{}, {dir.file("checkout"), dir.file("flat")}});
  // A relative path as a ccache build leaves it: "../" and all.
  const std::vector<std::string>* deep = files.lines("../tests/programs/c.c");
  REQUIRE(deep);
  CHECK(deep->front() == "deep");
  CHECK(files.found("../tests/programs/c.c") == dir.file("checkout") + "/tests/programs/c.c");
  const std::vector<std::string>* flat = files.lines("/home/someone/project/d.c");
  REQUIRE(flat);
  CHECK(flat->front() == "flat");
}

TEST_CASE("source files: only regular files are read", "[source_files]") {
  TempDir dir;
  std::filesystem::create_directories(dir.file("src/e.c"));  // a folder with a file's name
  SourceFiles files({});
  CHECK(files.lines(dir.file("src/e.c")) == nullptr);
  CHECK(files.lines("/dev/zero") == nullptr);
}

TEST_CASE("source files: --prefix-map OLD=NEW", "[source_files]") {
  const PrefixMap m = parse_prefix_map("/build=/home/me/src", "--prefix-map");
  CHECK(m.from == "/build");
  CHECK(m.to == "/home/me/src");
  CHECK(parse_prefix_map("/a==b", "--prefix-map").to == "=b");
  CHECK_THROWS_WITH(parse_prefix_map("/build", "--prefix-map"), Catch::Contains("expected OLD=NEW"));
  CHECK_THROWS_WITH(parse_prefix_map("=/x", "--prefix-map"), Catch::Contains("expected OLD=NEW"));
}
