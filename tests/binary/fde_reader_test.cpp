#include "binary/fde_reader.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <utility>
#include <vector>

#include "binary/dwarf_regs.h"
#include "binary/elf_binary.h"
#include "common/elf_handle.h"
#include "binary/cfi_table.h"
#include "support/cli_harness.h"
#include "support/elf_files.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

std::vector<std::pair<uint64_t, uint64_t>> ranges(const std::vector<FdeRange>& fdes) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const FdeRange& f : fdes) out.emplace_back(f.lo, f.hi);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("FdeReader finds the same FDEs through .eh_frame_hdr and by walking .eh_frame", "[cfi]") {
  auto binary = ElfBinary::open(SWPROF_CFI_FIXTURE);
  REQUIRE(binary);
  ElfPtr elf = elf_of(*binary);
  FdeReader reader(elf.get());
  REQUIRE(reader.ok());
  auto eh_frame = find_section(elf.get(), ".eh_frame");
  REQUIRE(eh_frame);
  const auto from_hdr = reader.eh_frame_fdes_from_hdr(*eh_frame);
  const auto walked = reader.walk_fdes(*eh_frame, true);
  CHECK(from_hdr.size() == 7);
  CHECK(ranges(from_hdr) == ranges(walked));
  for (const FdeRange& fde : walked) {
    CHECK(fde.lo < fde.hi);
    CHECK(!fde.instructions.empty());
    const CieInfo* cie = reader.cie_info(*eh_frame, true, fde.cie_offset);
    REQUIRE(cie);
    CHECK(cie->ra_column == kRip);
    CHECK(cie->initial.has_value());
  }
  auto debug_frame = find_section(elf.get(), ".debug_frame");
  REQUIRE(debug_frame);
  CHECK(reader.walk_fdes(*debug_frame, false).size() == 1);
  CHECK(reader.skipped_fdes() == 0);
}

TEST_CASE("FdeReader finds no table without .eh_frame_hdr, and refuses what is not ELF", "[cfi]") {
  auto binary = ElfBinary::open(SWPROF_CFI_FIXTURE_NOHDR);
  REQUIRE(binary);
  ElfPtr elf = elf_of(*binary);
  FdeReader reader(elf.get());
  REQUIRE(reader.ok());
  auto eh_frame = find_section(elf.get(), ".eh_frame");
  REQUIRE(eh_frame);
  CHECK(!find_section(elf.get(), ".eh_frame_hdr"));
  CHECK(reader.eh_frame_fdes_from_hdr(*eh_frame).empty());
  CHECK(reader.walk_fdes(*eh_frame, true).size() == 7);

  char text[] = "not an ELF file";
  ElfPtr not_elf(elf_memory(text, sizeof text));
  CHECK_FALSE(FdeReader(not_elf.get()).ok());
  CHECK_FALSE(FdeReader(nullptr).ok());
}

TEST_CASE("fde_reader: a compressed .debug_frame is not read (its bytes are not CFI), and compiling it is no crash") {
  // Go compresses its DWARF; here the same with objcopy on a program whose
  // only CFI for its own code is .debug_frame.
  swprof::testing::TempDir dir;
  const std::string plain = std::string(KNOWN_STACK_DIR) + "/known_stack_O2_nofp_debugframe";
  const std::string compressed = dir.file("compressed");
  auto r = swprof::testing::run({"/usr/bin/objcopy", "--compress-debug-sections=zlib", plain, compressed}, dir.path());
  REQUIRE(r.exit_code == 0);
  auto original = ElfBinary::open(plain);
  auto zipped = ElfBinary::open(compressed);
  REQUIRE((original && zipped));
  const FunctionSymbol* leaf = original->function_named("leaf");
  REQUIRE(leaf);
  ElfPtr elf = elf_of(*zipped);
  CHECK_FALSE(find_section(elf.get(), ".debug_frame"));
  CHECK(find_section(elf.get(), ".eh_frame"));
  CHECK(CfiTable::compile(*original)->lookup(leaf->start) != nullptr);
  CHECK(CfiTable::compile(*zipped)->lookup(leaf->start) == nullptr);
}
