// The bound on what compressed sections may claim, on tiny ELF files
// (support/elf_image.h): gABI sections (an Elf64_Chdr), GNU's .zdebug_*
// sections ("ZLIB" and a big-endian size), and setting sections aside by
// renaming them.

#include "symbolize/compressed_sections.h"

#include <elf.h>
#include <gelf.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "common/elf_handle.h"
#include "support/elf_image.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// A gABI compressed section's bytes: a zlib header claiming `claimed`, then
// `packed` bytes (not a real stream: only the claim is read).
std::vector<uint8_t> gabi_section(uint64_t claimed, size_t packed) {
  Elf64_Chdr ch{};
  ch.ch_type = ELFCOMPRESS_ZLIB;
  ch.ch_size = claimed;
  ch.ch_addralign = 1;
  std::vector<uint8_t> out(sizeof ch + packed, 0x55);
  std::memcpy(out.data(), &ch, sizeof ch);
  return out;
}

// A .zdebug_* section's bytes: "ZLIB", `claimed` big-endian, `packed` bytes.
std::vector<uint8_t> gnu_section(uint64_t claimed, size_t packed) {
  std::vector<uint8_t> out = {'Z', 'L', 'I', 'B'};
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(claimed >> shift));
  out.resize(out.size() + packed, 0x55);
  return out;
}

std::vector<std::string> names(const std::vector<OversizedSection>& sections) {
  std::vector<std::string> out;
  for (const auto& s : sections) out.push_back(s.name);
  return out;
}

}  // namespace

TEST_CASE("compressed sections: a claim is allowed up to 64 times the bytes and 1 GiB", "[symbolize]") {
  CHECK(inflation_problem(0, 0).empty());
  CHECK(inflation_problem(64 * 1000, 1000).empty());
  CHECK(inflation_problem(64 * 1000 + 64, 1000) == "claims 64064 bytes uncompressed from 1000");
  CHECK(inflation_problem(uint64_t{1} << 30, uint64_t{1} << 30).empty());
  CHECK_FALSE(inflation_problem((uint64_t{1} << 30) + 1, uint64_t{1} << 30).empty());
  CHECK_FALSE(inflation_problem(UINT64_MAX, 1).empty());
}

TEST_CASE("compressed sections: those claiming too much are named, of either kind, DWARF or not", "[symbolize]") {
  const uint64_t kPacked = 1000;
  std::vector<uint8_t> image = make_elf_image({
      {".debug_info", SHT_PROGBITS, SHF_COMPRESSED, 0, gabi_section(kPacked * 64, kPacked)},
      {".debug_line", SHT_PROGBITS, SHF_COMPRESSED, 0, gabi_section(kPacked * 1000, kPacked)},
      {".zdebug_str", SHT_PROGBITS, 0, 0, gnu_section(kPacked * 64, kPacked)},
      {".zdebug_abbrev", SHT_PROGBITS, 0, 0, gnu_section(uint64_t{1} << 40, kPacked)},
      {".symtab_packed", SHT_PROGBITS, SHF_COMPRESSED, 0, gabi_section(kPacked * 65, kPacked)},
      {".debug_ranges", SHT_PROGBITS, 0, 0, std::vector<uint8_t>(64, 0)},  // not compressed
      {".debug_loclists", SHT_PROGBITS, SHF_COMPRESSED, 0, std::vector<uint8_t>(8, 0)},  // header cut short
  });
  const ElfPtr elf(elf_memory(reinterpret_cast<char*>(image.data()), image.size()));
  REQUIRE(elf);
  const std::vector<OversizedSection> oversized = oversized_compressed_sections(elf.get());
  CHECK(names(oversized) == std::vector<std::string>{".debug_line", ".zdebug_abbrev", ".symtab_packed"});
  REQUIRE(oversized.size() == 3);
  CHECK(oversized[0].index == 2);
  CHECK(oversized[0].problem == "claims 1000000 bytes uncompressed from 1000");
  CHECK(oversized[1].problem == "claims 1099511627776 bytes uncompressed from 1000");

  SECTION("renamed in a copy, nothing finds them by name") {
    std::vector<uint8_t> copy = image;
    for (const auto& s : oversized) REQUIRE(rename_section(copy, elf.get(), s.index));
    CHECK_FALSE(rename_section(copy, elf.get(), 99));
    const ElfPtr renamed(elf_memory(reinterpret_cast<char*>(copy.data()), copy.size()));
    CHECK(oversized_compressed_sections(renamed.get()).size() == 2);  // a renamed .zdebug_ is not one
    size_t shstrndx = 0;
    REQUIRE(elf_getshdrstrndx(renamed.get(), &shstrndx) == 0);
    std::vector<std::string> all;
    for (Elf_Scn* scn = elf_nextscn(renamed.get(), nullptr); scn; scn = elf_nextscn(renamed.get(), scn)) {
      GElf_Shdr sh;
      REQUIRE(gelf_getshdr(scn, &sh));
      all.push_back(elf_strptr(renamed.get(), shstrndx, sh.sh_name));
    }
    CHECK(all == std::vector<std::string>{".debug_info", "Xdebug_line", ".zdebug_str", "Xzdebug_abbrev",
                                          "Xsymtab_packed", ".debug_ranges", ".debug_loclists", ".shstrtab"});
  }
}

TEST_CASE("compressed sections: what is not an ELF file has none", "[symbolize]") {
  std::vector<uint8_t> bytes(256, 'x');
  const ElfPtr elf(elf_memory(reinterpret_cast<char*>(bytes.data()), bytes.size()));
  CHECK(oversized_compressed_sections(elf.get()).empty());
  CHECK(oversized_compressed_sections(nullptr).empty());
  CHECK_FALSE(rename_section(bytes, elf.get(), 1));
}
