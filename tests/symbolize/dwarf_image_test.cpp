// DwarfImage on tiny ELF files (support/elf_image.h: header, a few sections,
// their names), and on the sym_target test program's debuginfo compressed by
// objcopy: what is kept, decompressed, dropped, and what a damaged
// compression header gives.

#include "symbolize/dwarf_image.h"

#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <zstd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "common/elf_handle.h"
#include "common/error.h"
#include "support/elf_image.h"
#include "support/read_file.h"
#include "support/sym_fixtures.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

std::vector<uint8_t> text_bytes(const std::string& s) { return {s.begin(), s.end()}; }

// Bytes that compress about as much as DWARF does (not a thousandfold).
std::vector<uint8_t> varied_bytes(size_t n) {
  std::vector<uint8_t> out(n);
  uint32_t x = 12345;
  for (uint8_t& b : out) {
    x = x * 1103515245 + 12345;
    b = static_cast<uint8_t>('a' + (x >> 16) % 8);
  }
  return out;
}

// `plain` zstd-compressed behind an Elf64_Chdr claiming `claimed` bytes
// (its true size when 0).
std::vector<uint8_t> zstd_section(const std::vector<uint8_t>& plain, uint64_t claimed = 0) {
  std::vector<uint8_t> packed(ZSTD_compressBound(plain.size()));
  const size_t n = ZSTD_compress(packed.data(), packed.size(), plain.data(), plain.size(), 3);
  REQUIRE_FALSE(ZSTD_isError(n));
  Elf64_Chdr ch{};
  ch.ch_type = 2;  // ELFCOMPRESS_ZSTD
  ch.ch_size = claimed ? claimed : plain.size();
  ch.ch_addralign = 1;
  std::vector<uint8_t> out(sizeof ch + n);
  std::memcpy(out.data(), &ch, sizeof ch);
  std::memcpy(out.data() + sizeof ch, packed.data(), n);
  return out;
}

// A section of an image as libelf reads it back.
struct ReadSection {
  std::string name;
  GElf_Shdr header{};
  std::vector<uint8_t> bytes;  // empty for SHT_NOBITS
};

std::vector<ReadSection> read_back(std::vector<uint8_t>& image) {
  elf_version(EV_CURRENT);
  ElfPtr elf(elf_memory(reinterpret_cast<char*>(image.data()), image.size()));
  REQUIRE(elf);
  size_t shstrndx = 0;
  REQUIRE(elf_getshdrstrndx(elf.get(), &shstrndx) == 0);
  std::vector<ReadSection> out(1);
  for (Elf_Scn* scn = elf_nextscn(elf.get(), nullptr); scn; scn = elf_nextscn(elf.get(), scn)) {
    ReadSection r;
    REQUIRE(gelf_getshdr(scn, &r.header));
    r.name = elf_strptr(elf.get(), shstrndx, r.header.sh_name);
    if (r.header.sh_type != SHT_NOBITS) {
      Elf_Data* data = elf_rawdata(scn, nullptr);
      REQUIRE(data);
      const auto* p = static_cast<const uint8_t*>(data->d_buf);
      r.bytes.assign(p, p + data->d_size);
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<uint8_t> written(DwarfImage& image) {
  std::vector<uint8_t> out(image.size());
  image.write(out);
  return out;
}

}  // namespace

TEST_CASE("dwarf image: kept DWARF sections are the ones for units, scopes, ranges and lines", "[symbolize][dwarf_image]") {
  for (const char* kept : {".debug_info", ".debug_abbrev", ".debug_str", ".debug_line", ".debug_line_str",
                           ".debug_rnglists", ".debug_ranges", ".debug_aranges", ".zdebug_info"})
    CHECK(kept_dwarf_section(kept));
  for (const char* dropped : {".debug_loclists", ".debug_loc", ".debug_macro", ".debug_types", ".debug_frame",
                              ".debug_pubnames", ".zdebug_loc", ".symtab"})
    CHECK_FALSE(kept_dwarf_section(dropped));
}

TEST_CASE("dwarf image: compressed sections are stored plain, unneeded ones dropped, others copied at their index",
          "[symbolize][dwarf_image]") {
  const std::vector<uint8_t> info = varied_bytes(5000);
  const std::vector<uint8_t> symbols = text_bytes("symbols stay as they are");
  const std::vector<uint8_t> file = make_elf_image({
      {.name = ".symtab_like", .bytes = symbols},
      {.name = ".debug_info", .flags = SHF_COMPRESSED, .bytes = zstd_section(info)},
      {.name = ".debug_loclists", .flags = SHF_COMPRESSED, .bytes = zstd_section(varied_bytes(3000))},
      {.name = ".debug_abbrev", .bytes = text_bytes("abbrev")},
  });
  auto image = DwarfImage::plan(file);
  REQUIRE(image);
  std::vector<uint8_t> bytes = written(*image);
  CHECK(image->problems().empty());
  const auto sections = read_back(bytes);
  REQUIRE(sections.size() == 6);
  CHECK(sections[1].name == ".symtab_like");
  CHECK(sections[1].bytes == symbols);
  CHECK(sections[2].name == ".debug_info");
  CHECK(sections[2].header.sh_type == SHT_PROGBITS);
  CHECK((sections[2].header.sh_flags & SHF_COMPRESSED) == 0);
  CHECK(sections[2].bytes == info);
  CHECK(sections[3].name == ".debug_loclists");
  CHECK(sections[3].header.sh_type == SHT_NOBITS);
  CHECK(sections[4].bytes == text_bytes("abbrev"));
  CHECK(sections[5].name == ".shstrtab");
  CHECK(bytes.size() < info.size() + 1024);  // the dropped section takes no room
}

TEST_CASE("dwarf image: a file without compressed DWARF is used as it is", "[symbolize][dwarf_image]") {
  const std::vector<uint8_t> file = make_elf_image({{.name = ".debug_info", .bytes = text_bytes("plain")},
                                                    {.name = ".debug_loclists", .bytes = text_bytes("plain too")}});
  CHECK_FALSE(DwarfImage::plan(file));
  CHECK_FALSE(DwarfImage::plan(text_bytes("not an ELF file at all, but long enough for a header.........")));
}

TEST_CASE("dwarf image: a claimed size over the bounds or a damaged stream drops the section, named", "[symbolize][dwarf_image]") {
  const std::vector<uint8_t> info = varied_bytes(100);
  SECTION("a compression header claiming a terabyte allocates nothing") {
    const std::vector<uint8_t> file = make_elf_image(
        {{.name = ".debug_info", .flags = SHF_COMPRESSED, .bytes = zstd_section(info, uint64_t{1} << 40)}});
    auto image = DwarfImage::plan(file);
    REQUIRE(image);
    CHECK(image->size() < 4096);
    std::vector<uint8_t> bytes = written(*image);
    REQUIRE(image->problems().size() == 1);
    CHECK(image->problems()[0].starts_with("its .debug_info section claims 1099511627776 bytes"));
    CHECK(read_back(bytes)[1].header.sh_type == SHT_NOBITS);
  }
  SECTION("a stream shorter than claimed") {
    const std::vector<uint8_t> file = make_elf_image(
        {{.name = ".debug_info", .flags = SHF_COMPRESSED, .bytes = zstd_section(info, info.size() + 10)}});
    auto image = DwarfImage::plan(file);
    REQUIRE(image);
    std::vector<uint8_t> bytes = written(*image);
    REQUIRE(image->problems().size() == 1);
    CHECK(image->problems()[0] == "its .debug_info section does not decompress (damaged)");
    CHECK(read_back(bytes)[1].header.sh_type == SHT_NOBITS);
  }
  SECTION("a section past the end of the file is an error") {
    std::vector<uint8_t> file =
        make_elf_image({{.name = ".debug_info", .flags = SHF_COMPRESSED, .bytes = zstd_section(info)}});
    Elf64_Ehdr eh;
    std::memcpy(&eh, file.data(), sizeof eh);
    Elf64_Shdr s;
    std::memcpy(&s, file.data() + eh.e_shoff + sizeof s, sizeof s);
    s.sh_size = 1 << 20;
    std::memcpy(file.data() + eh.e_shoff + sizeof s, &s, sizeof s);
    CHECK_THROWS_WITH(DwarfImage::plan(file), "its .debug_info section lies outside the file");
  }
}

TEST_CASE("dwarf image: objcopy's zlib and zstd debuginfo decompress to objcopy's plain sections", "[symbolize][dwarf_image]") {
  TempDir dir;
  const std::string plain = program_file("sym_target.debug");
  const std::string method = GENERATE(std::string("zlib"), std::string("zstd"));
  const std::string packed = dir.file("packed.debug");
  command_output("objcopy --compress-debug-sections=" + method + " " + plain + " " + packed);
  const std::string text = read_file(packed);
  const std::vector<uint8_t> file(text.begin(), text.end());
  auto image = DwarfImage::plan(file);
  REQUIRE(image);
  std::vector<uint8_t> bytes = written(*image);
  CHECK(image->problems().empty());
  const std::string original_text = read_file(plain);
  std::vector<uint8_t> original(original_text.begin(), original_text.end());
  const auto want = read_back(original);
  const auto got = read_back(bytes);
  REQUIRE(got.size() == want.size());
  size_t compared = 0;
  for (size_t i = 1; i < got.size(); ++i) {
    INFO(want[i].name);
    CHECK(got[i].name == want[i].name);
    if (!kept_dwarf_section(want[i].name) && want[i].name.starts_with(".debug_")) {
      CHECK(got[i].header.sh_type == SHT_NOBITS);
      continue;
    }
    CHECK(got[i].header.sh_type == want[i].header.sh_type);
    CHECK(got[i].bytes == want[i].bytes);
    ++compared;
  }
  CHECK(compared > 5);
}

TEST_CASE("dwarf image: a big section decompresses on a second thread, damaged or not", "[symbolize][dwarf_image]") {
  const std::vector<uint8_t> big = varied_bytes(DwarfImage::kSecondThreadBytes + 4096);
  const std::vector<uint8_t> small = varied_bytes(700);
  const bool damaged = GENERATE(false, true);
  std::vector<uint8_t> packed = zstd_section(big);
  if (damaged) packed.resize(packed.size() / 2);
  const std::vector<uint8_t> file =
      make_elf_image({{.name = ".debug_line", .flags = SHF_COMPRESSED, .bytes = zstd_section(small)},
                      {.name = ".debug_info", .flags = SHF_COMPRESSED, .bytes = packed}});
  auto image = DwarfImage::plan(file);
  REQUIRE(image);
  std::vector<uint8_t> bytes = written(*image);
  const auto sections = read_back(bytes);
  CHECK(sections[1].bytes == small);
  if (damaged) {
    CHECK(image->problems() == std::vector<std::string>{"its .debug_info section does not decompress (damaged)"});
    CHECK(sections[2].header.sh_type == SHT_NOBITS);
  } else {
    CHECK(image->problems().empty());
    CHECK(sections[2].bytes == big);
  }
}
