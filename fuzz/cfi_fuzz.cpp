// Fuzz target: the CFI compiler (binary/cfi_table.cpp) on arbitrary
// .eh_frame_hdr, .eh_frame and .debug_frame bytes, wrapped as the sections of
// an in-memory ELF image (tests/support/elf_image.h). The input is
//
//   u8  options        bit 0: use .eh_frame_hdr, bit 1: use .debug_frame
//   u64 hdr_addr       sh_addr of .eh_frame_hdr (its pc-relative pointers depend on it)
//   u64 eh_frame_addr  sh_addr of .eh_frame
//   u16 hdr_size       bytes of .eh_frame_hdr that follow (cut to what is left)
//   u16 eh_frame_size  bytes of .eh_frame that follow them (cut to what is left)
//   ...                the section bytes; whatever remains is .debug_frame
//
// (fuzz/make_corpus.sh packs the sections of real binaries this way.) The
// compiled table must answer lookups consistently with its own rows.

#include <cstring>

#include "binary/cfi_table.h"
#include "binary/elf_binary.h"
#include "common/byte_reader.h"
#include "fuzz/fuzz_target.h"
#include "tests/support/elf_image.h"

namespace {

using swprof::Bytes;

struct CfiInput {
  swprof::CfiCompileOptions options;
  std::vector<swprof::testing::ImageSection> sections;
};

std::optional<CfiInput> split_input(Bytes data) {
  swprof::ByteReader r(data);
  auto options = r.read<uint8_t>();
  auto hdr_addr = r.read<uint64_t>();
  auto eh_frame_addr = r.read<uint64_t>();
  auto hdr_size = r.read<uint16_t>();
  auto eh_frame_size = r.read<uint16_t>();
  if (!options || !hdr_addr || !eh_frame_addr || !hdr_size || !eh_frame_size) return std::nullopt;
  CfiInput in;
  in.options.use_eh_frame_hdr = *options & 1;
  in.options.use_debug_frame = *options & 2;
  const Bytes hdr = *r.bytes(std::min<size_t>(*hdr_size, r.remaining()));
  const Bytes eh_frame = *r.bytes(std::min<size_t>(*eh_frame_size, r.remaining()));
  const Bytes debug_frame = *r.bytes(r.remaining());
  in.sections = {{.name = ".eh_frame_hdr", .addr = *hdr_addr, .bytes = {hdr.begin(), hdr.end()}},
                 {.name = ".eh_frame", .addr = *eh_frame_addr, .bytes = {eh_frame.begin(), eh_frame.end()}}};
  if (!debug_frame.empty())
    in.sections.push_back({.name = ".debug_frame", .bytes = {debug_frame.begin(), debug_frame.end()}});
  return in;
}

// lookup() and row_at() must agree at `vaddr`, and the row's rule must cover
// its first and last byte.
void check_lookup(const swprof::CfiTable& table, uint64_t vaddr) {
  const swprof::CfiRule* rule = table.lookup(vaddr);
  auto row = table.row_at(vaddr);
  SWPROF_FUZZ_CHECK((rule != nullptr) == row.has_value());
  if (!row) return;
  SWPROF_FUZZ_CHECK(row->rule == rule && row->start <= vaddr && vaddr < row->end);
  SWPROF_FUZZ_CHECK(table.lookup(row->start) == rule && table.lookup(row->end - 1) == rule);
  static_cast<void>(swprof::describe(*rule));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto input = split_input(Bytes(data, size));
  if (!input) return 0;
  auto binary = swprof::ElfBinary::from_image("fuzz.elf", swprof::testing::make_elf_image(input->sections));
  SWPROF_FUZZ_CHECK(binary != nullptr);  // the image is always a well-formed ELF
  auto table = swprof::CfiTable::compile(*binary, input->options);
  SWPROF_FUZZ_CHECK(table != nullptr);
  // Lookups at addresses the input spells (FDE initial locations among
  // them), at every byte offset of its first 512 bytes.
  for (size_t at = 0; at + 8 <= size && at < 512; ++at) {
    uint64_t vaddr = 0;
    std::memcpy(&vaddr, data + at, 8);
    check_lookup(*table, vaddr);
  }
  return 0;
}
