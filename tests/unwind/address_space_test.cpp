// Address spaces rebuilt from mapping records: a mapped file is opened when
// an address in it is first looked up, never for mappings no sample reaches.

#include "unwind/address_space.h"

#include <catch2/catch.hpp>
#include <filesystem>

using namespace swprof;

namespace {

MappingRecord mapping(uint64_t start, uint64_t length, uint64_t offset, const std::string& path) {
  MappingRecord m;
  m.pid = m.tid = 100;
  m.start = start;
  m.length = length;
  m.file_offset = offset;
  m.prot = 5;
  m.path = path;
  return m;
}

std::string self_path() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

}  // namespace

TEST_CASE("address spaces: a mapped file is opened, and warned about, only when looked up", "[address_space]") {
  auto binaries = std::make_shared<BinaryCache>();
  AddressSpaces spaces(binaries);
  spaces.apply(mapping(0x400000, 0x1000, 0, "/nonexistent/looked-up.so"));
  spaces.apply(mapping(0x500000, 0x1000, 0, "/nonexistent/never-looked-up.so"));
  const auto maps = spaces.snapshot(100);
  CHECK(binaries->warnings().empty());
  REQUIRE(maps->mappings().size() == 2);
  const Mapping* m = maps->find(0x400010);
  REQUIRE(m);
  CHECK(m->path == "/nonexistent/looked-up.so");
  CHECK_FALSE(m->binary);
  CHECK(maps->find(0x400020) == m);  // opened once
  const auto warnings = binaries->warnings();
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("/nonexistent/looked-up.so is missing") == 0);
}

TEST_CASE("address spaces: the warnings of files opened in any order come in mapping order", "[address_space]") {
  auto binaries = std::make_shared<BinaryCache>();
  AddressSpaces spaces(binaries);
  spaces.apply(mapping(0x400000, 0x1000, 0, "/nonexistent/a"));
  spaces.apply(mapping(0x500000, 0x1000, 0, "/nonexistent/b"));
  spaces.apply(mapping(0x600000, 0x1000, 0, "/nonexistent/c"));
  spaces.apply(mapping(0x700000, 0x1000, 0, "/nonexistent/a"));  // a again, mapped later
  const auto maps = spaces.snapshot(100);
  for (uint64_t addr : {0x600000, 0x700000, 0x500000}) maps->find(addr);
  const auto warnings = binaries->warnings();
  REQUIRE(warnings.size() == 3);
  // a was first looked up through its second mapping: it is listed by that one, after b.
  CHECK(warnings[0].find("/nonexistent/b") != std::string::npos);
  CHECK(warnings[1].find("/nonexistent/c") != std::string::npos);
  CHECK(warnings[2].find("/nonexistent/a") != std::string::npos);
  maps->find(0x400000);  // its first mapping: now listed first
  CHECK(binaries->warnings()[0].find("/nonexistent/a") != std::string::npos);
}

TEST_CASE("address spaces: the pieces of a mapping partly replaced keep its file and bias", "[address_space]") {
  auto binaries = std::make_shared<BinaryCache>();
  AddressSpaces spaces(binaries);
  const std::string self = self_path();
  spaces.apply(mapping(0x10000000, 0x3000, 0, self));
  spaces.apply(mapping(0x10001000, 0x1000, 0, "/nonexistent/middle"));
  const auto maps = spaces.snapshot(100);
  const Mapping whole = resolve_mapping(*binaries, 0x10000000, 0x10003000, 0, self, true, {});
  REQUIRE(whole.binary);
  const Mapping* left = maps->find(0x10000010);
  const Mapping* right = maps->find(0x10002010);
  REQUIRE(left);
  REQUIRE(right);
  CHECK(left->start == 0x10000000);
  CHECK(left->end == 0x10001000);
  CHECK(left->file_offset == 0);
  CHECK(right->start == 0x10002000);
  CHECK(right->end == 0x10003000);
  CHECK(right->file_offset == 0x2000);
  for (const Mapping* piece : {left, right}) {
    CHECK(piece->binary == whole.binary);
    CHECK(piece->bias == whole.bias);
  }
  CHECK(maps->find(0x10001010)->path == "/nonexistent/middle");
  CHECK(binaries->warnings().size() == 1);
}

TEST_CASE("address spaces: every mapped file opened at once when asked", "[address_space]") {
  auto binaries = std::make_shared<BinaryCache>();
  AddressSpaces spaces(binaries, false);
  spaces.apply(mapping(0x400000, 0x1000, 0, "/nonexistent/b"));
  spaces.apply(mapping(0x500000, 0x1000, 0, "/nonexistent/a"));
  const auto warnings = binaries->warnings();
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].find("/nonexistent/b") != std::string::npos);
  CHECK(warnings[1].find("/nonexistent/a") != std::string::npos);
  CHECK_FALSE(spaces.snapshot(100)->mappings()[0].pending);
}
