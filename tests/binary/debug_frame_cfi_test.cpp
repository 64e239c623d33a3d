// libdw's CFI over an image holding only .debug_frame (binary/debug_frame_cfi.h):
// the rows libdw gives over the whole file, at every pc of every FDE, and no
// other section in the image, beside compressed DWARF too.

#include "binary/debug_frame_cfi.h"

#include <catch2/catch.hpp>
#include <fcntl.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "binary/elf_binary.h"
#include "common/unique_fd.h"
#include "support/compressed_dwarf.h"
#include "support/elf_files.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

const std::string kPlain = std::string(KNOWN_STACK_DIR) + "/known_stack_O2_nofp_debugframe";

// The binary at `path`, libelf's handle over it, its .debug_frame and
// libdw's CFI over an image of that section alone.
struct DebugFrameOf {
  std::shared_ptr<ElfBinary> binary;
  ElfPtr elf;
  SectionRef section;
  std::unique_ptr<DebugFrameCfi> image;
};

DebugFrameOf debug_frame_of(const std::string& path) {
  DebugFrameOf out{open_binary(path), nullptr, {}, nullptr};
  out.elf = elf_of(*out.binary);
  auto section = find_section(out.elf.get(), ".debug_frame");
  REQUIRE(section);
  out.section = *section;
  out.image = DebugFrameCfi::open(out.elf.get(), out.section);
  REQUIRE(out.image);
  return out;
}

// libdw's row at `pc` as text: its range, return address column, CFA and
// the rules of the registers the x86-64 code saves; "none" without a row.
std::string row_text(Dwarf_CFI* cfi, uint64_t pc) {
  Dwarf_Frame* frame = nullptr;
  if (dwarf_cfi_addrframe(cfi, pc, &frame) != 0 || !frame) return "none";
  std::string out;
  Dwarf_Addr start = 0, end = 0;
  bool signal = false;
  const int ra = dwarf_frame_info(frame, &start, &end, &signal);
  out += std::to_string(start) + "-" + std::to_string(end) + " ra " + std::to_string(ra) + (signal ? " signal" : "");
  Dwarf_Op* ops = nullptr;
  size_t nops = 0;
  if (dwarf_frame_cfa(frame, &ops, &nops) == 0)
    for (size_t i = 0; i < nops; ++i)
      out += " cfa " + std::to_string(ops[i].atom) + ":" + std::to_string(ops[i].number);
  for (int reg : {3, 6, 12, 13, 14, 15, 16}) {
    Dwarf_Op storage[3];
    Dwarf_Op* rule = nullptr;
    size_t nrule = 0;
    if (dwarf_frame_register(frame, reg, storage, &rule, &nrule) != 0) continue;
    out += " r" + std::to_string(reg) + (rule ? "" : " undefined");
    for (size_t i = 0; rule && i < nrule; ++i) out += " " + std::to_string(rule[i].atom) + ":" + std::to_string(rule[i].number);
  }
  std::free(frame);
  return out;
}

}  // namespace

TEST_CASE("DebugFrameCfi: libdw's rows from the image are its rows from the whole file, at every pc", "[cfi]") {
  const DebugFrameOf d = debug_frame_of(kPlain);

  // The whole file's DWARF (uncompressed here), opened as libdw opens a file.
  UniqueFd fd(::open(kPlain.c_str(), O_RDONLY | O_CLOEXEC));
  REQUIRE(fd.get() >= 0);
  DwarfPtr whole(dwarf_begin(fd.get(), DWARF_C_READ));
  REQUIRE(whole);
  Dwarf_CFI* reference = dwarf_getcfi(whole.get());
  REQUIRE(reference);

  FdeReader reader(d.elf.get());
  const auto fdes = reader.walk_fdes(d.section, false);
  REQUIRE(fdes.size() > 5);
  size_t pcs = 0, differ = 0;
  for (const FdeRange& fde : fdes) {
    for (uint64_t pc = fde.lo - 1; pc <= fde.hi; ++pc, ++pcs) {
      const std::string a = row_text(d.image->cfi(), pc);
      const std::string b = row_text(reference, pc);
      if (a != b && ++differ <= 3) FAIL_CHECK(std::hex << "0x" << pc << ": " << a << " vs " << b);
    }
  }
  CHECK(pcs > 100);
  CHECK(differ == 0);
}

TEST_CASE("DebugFrameCfi: the image holds .debug_frame alone, beside compressed DWARF too", "[cfi]") {
  swprof::testing::TempDir dir;
  const std::string mixed = dir.file("compressed_dwarf");
  REQUIRE(swprof::testing::write_compressed_dwarf_plain_debug_frame(kPlain, mixed, dir.path()));
  REQUIRE(swprof::testing::section_compressed(mixed, ".debug_info"));
  const DebugFrameOf d = debug_frame_of(mixed);
  // The ELF header, the section, two names and three section headers.
  CHECK(d.image->image_bytes() <= d.section.bytes().size() + 64 + 24 + 8 + 3 * 64);
  const FunctionSymbol* leaf = d.binary->function_named("leaf");
  REQUIRE(leaf);
  CHECK(row_text(d.image->cfi(), leaf->start) != "none");
}

TEST_CASE("DebugFrameCfi: nothing without an ELF file or section bytes", "[cfi]") {
  CHECK(DebugFrameCfi::open(nullptr, SectionRef{}) == nullptr);
  auto binary = open_binary(kPlain);
  ElfPtr elf = elf_of(*binary);
  CHECK(DebugFrameCfi::open(elf.get(), SectionRef{}) == nullptr);
}
