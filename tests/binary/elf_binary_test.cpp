// Reading code bytes for checks at scattered pcs: the same bytes as the
// file's mapping gives, from a small executable segment (the mapping) and a
// big one (pread: gcc's cc1, when installed).

#include "binary/elf_binary.h"

#include <catch2/catch.hpp>

#include <cstring>

#include "support/elf_files.h"
#include "support/sym_fixtures.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

std::vector<std::string> binaries_with_code() {
  std::vector<std::string> out{SWPROF_DISCOVERY_FIXTURE, program_file("known_static.stripped")};
  for (const std::string& cc1 : cc1_paths()) out.push_back(cc1);
  return out;
}

}  // namespace

TEST_CASE("binary: code read for scattered checks is the mapped code, and nothing outside executable segments", "[binary]") {
  constexpr size_t kN = 9;
  bool big_seen = false;
  for (const std::string& path : binaries_with_code()) {
    INFO(path);
    auto binary = open_binary(path);
    for (const LoadSegment& s : binary->segments()) {
      if (s.filesz < kN) continue;
      big_seen |= s.exec && s.filesz >= ElfBinary::kScatteredReadLimit;
      for (uint64_t vaddr : {s.vaddr, s.vaddr + s.filesz / 3, s.vaddr + s.filesz / 2 + 5, s.vaddr + s.filesz - kN}) {
        INFO("at " << vaddr);
        uint8_t got[kN] = {};
        const bool read = binary->read_code_scattered(vaddr, got, kN);
        CHECK(read == s.exec);
        if (!read) continue;
        const Bytes mapped = binary->code_at(vaddr, kN, true);
        REQUIRE(mapped.size() == kN);
        CHECK(std::memcmp(got, mapped.data(), kN) == 0);
      }
      uint8_t past[kN];
      CHECK_FALSE(binary->read_code_scattered(s.vaddr + s.filesz - kN + 1, past, kN));  // runs past the file image
    }
  }
  if (!big_seen) WARN("no executable segment of 4 MiB or more here: only the mapped path ran");
}
