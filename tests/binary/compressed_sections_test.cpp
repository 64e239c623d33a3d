// The bound on what compressed sections may claim, on tiny ELF files
// (support/elf_image.h): gABI sections (an Elf64_Chdr), GNU's .zdebug_*
// sections ("ZLIB" and a big-endian size), and setting sections aside by
// renaming them.

#include "binary/compressed_sections.h"

#include <elf.h>
#include <gelf.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "binary/elf_binary.h"
#include "common/elf_handle.h"
#include "support/compressed_dwarf.h"
#include "support/elf_image.h"
#include "support/peak_rss.h"

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

TEST_CASE("compressed sections: a claim is allowed up to 64 times the bytes and 1 GiB", "[binary]") {
  CHECK(inflation_problem(0, 0).empty());
  CHECK(inflation_problem(64 * 1000, 1000).empty());
  CHECK(inflation_problem(64 * 1000 + 1, 1000) == "claims 64001 bytes uncompressed from 1000");
  CHECK(inflation_problem(1, 0) == "claims 1 bytes uncompressed from 0");
  CHECK(inflation_problem(uint64_t{1} << 30, uint64_t{1} << 30).empty());
  CHECK_FALSE(inflation_problem((uint64_t{1} << 30) + 1, uint64_t{1} << 30).empty());
  CHECK_FALSE(inflation_problem(UINT64_MAX, 1).empty());
}

TEST_CASE("compressed sections: those claiming too much are named, of either kind, DWARF or not", "[binary]") {
  const uint64_t kPacked = 1000;
  std::vector<uint8_t> image = make_elf_image({
      {".debug_info", SHT_PROGBITS, SHF_COMPRESSED, 0, gabi_section(kPacked * 64, kPacked)},
      {".debug_line", SHT_PROGBITS, SHF_COMPRESSED, 0, gabi_section(kPacked * 1000, kPacked)},
      {".zdebug_str", SHT_PROGBITS, 0, 0, gnu_section(kPacked * 64, kPacked)},
      {".zdebug_abbrev", SHT_PROGBITS, 0, 0, gnu_section(uint64_t{1} << 40, kPacked)},
      {".symtab", SHT_SYMTAB, SHF_COMPRESSED, 0, gabi_section(kPacked * 65, kPacked)},
      {".debug_ranges", SHT_PROGBITS, 0, 0, std::vector<uint8_t>(64, 0)},  // not compressed
      {".debug_loclists", SHT_PROGBITS, SHF_COMPRESSED, 0, std::vector<uint8_t>(8, 0)},  // header cut short
  });
  const ElfPtr elf(elf_memory(reinterpret_cast<char*>(image.data()), image.size()));
  REQUIRE(elf);
  const std::vector<OversizedSection> oversized = oversized_compressed_sections(elf.get());
  CHECK(names(oversized) == std::vector<std::string>{".debug_line", ".zdebug_abbrev", ".symtab"});
  REQUIRE(oversized.size() == 3);
  CHECK(oversized[0].index == 2);
  CHECK(oversized[0].problem == "claims 1000000 bytes uncompressed from 1000");
  CHECK(oversized[1].problem == "claims 1099511627776 bytes uncompressed from 1000");

  SECTION("set aside in a copy, nothing finds them by name or type, nor inflates them") {
    std::vector<uint8_t> copy = image;
    for (const auto& s : oversized) REQUIRE(set_aside_section(copy, elf.get(), s.index));
    CHECK_FALSE(set_aside_section(copy, elf.get(), 99));
    CHECK_FALSE(set_aside_section(copy, elf.get(), 0));
    const ElfPtr aside(elf_memory(reinterpret_cast<char*>(copy.data()), copy.size()));
    CHECK(oversized_compressed_sections(aside.get()).empty());
    size_t shstrndx = 0;
    REQUIRE(elf_getshdrstrndx(aside.get(), &shstrndx) == 0);
    std::vector<std::string> all;
    std::vector<uint32_t> types;
    size_t compressed = 0;
    for (Elf_Scn* scn = elf_nextscn(aside.get(), nullptr); scn; scn = elf_nextscn(aside.get(), scn)) {
      GElf_Shdr sh;
      REQUIRE(gelf_getshdr(scn, &sh));
      all.push_back(elf_strptr(aside.get(), shstrndx, sh.sh_name));
      types.push_back(sh.sh_type);
      compressed += (sh.sh_flags & SHF_COMPRESSED) != 0;
    }
    CHECK(all == std::vector<std::string>{".debug_info", "Xdebug_line", ".zdebug_str", "Xzdebug_abbrev", "Xsymtab",
                                          ".debug_ranges", ".debug_loclists", ".shstrtab"});
    CHECK(types == std::vector<uint32_t>{SHT_PROGBITS, SHT_NOBITS, SHT_PROGBITS, SHT_NOBITS, SHT_NOBITS, SHT_PROGBITS,
                                         SHT_PROGBITS, SHT_STRTAB});
    CHECK(compressed == 2);  // .debug_info (within the bound) and .debug_loclists (unreadable header)
  }
}

namespace {

// Elf64_Shdr `index` of `image`.
Elf64_Shdr* header_at(std::vector<uint8_t>& image, size_t index) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, image.data(), sizeof eh);
  return reinterpret_cast<Elf64_Shdr*>(image.data() + eh.e_shoff + index * sizeof(Elf64_Shdr));
}

}  // namespace

TEST_CASE("compressed sections: an ELF file whose name table inflates beyond measure is read without names",
          "[binary]") {
  // libelf's elf_strptr inflates a compressed string table whole: 200 MB
  // of zeros behind the names are 200 KB here.
  const std::string names = std::string(1, '\0') + ".text" + '\0' + ".shstrtab" + '\0';
  std::vector<uint8_t> image = make_elf_image({
      {".text", SHT_PROGBITS, SHF_EXECINSTR, 0x1000, std::vector<uint8_t>(16, 0xc3)},
      {".bomb", SHT_PROGBITS, 0, 0, zlib_zeros_section(names, 200'000'000)},
  });
  // The name table's header now names the bomb's bytes, compressed.
  const Elf64_Shdr bomb = *header_at(image, 2);
  Elf64_Shdr* table = header_at(image, 3);
  table->sh_offset = bomb.sh_offset;
  table->sh_size = bomb.sh_size;
  table->sh_flags |= SHF_COMPRESSED;
  const ElfPtr elf(elf_memory(reinterpret_cast<char*>(image.data()), image.size()));
  REQUIRE(elf);
  reset_peak_rss();
  const size_t before = rss_kb();
  const std::vector<OversizedSection> oversized = oversized_compressed_sections(elf.get());
  auto binary = ElfBinary::from_image("bomb.elf", image);
  CHECK(peak_rss_kb() < before + 100 * 1024);  // KB: far less than 200 MB
  REQUIRE(oversized.size() == 1);
  CHECK(oversized[0].index == 3);
  CHECK(oversized[0].name.empty());
  REQUIRE(binary);
  CHECK_FALSE(binary->section(".text"));
  std::vector<uint8_t> copy = image;
  REQUIRE(set_aside_section(copy, elf.get(), 3));  // not renamed: its name lies in the compressed table
  const auto from = static_cast<long>(bomb.sh_offset);
  const auto to = static_cast<long>(bomb.sh_offset + bomb.sh_size);
  CHECK(std::equal(copy.begin() + from, copy.begin() + to, image.begin() + from));
}

TEST_CASE("compressed sections: what is not an ELF file has none", "[binary]") {
  std::vector<uint8_t> bytes(256, 'x');
  const ElfPtr elf(elf_memory(reinterpret_cast<char*>(bytes.data()), bytes.size()));
  CHECK(oversized_compressed_sections(elf.get()).empty());
  CHECK(oversized_compressed_sections(nullptr).empty());
  CHECK_FALSE(set_aside_section(bytes, elf.get(), 1));
}
