#pragma once
// .eh_frame_hdr (LSB 5.0 §10.6.2 "The .eh_frame_hdr section"): its pointer
// encodings and its sorted search table of (initial location, FDE address).

#include <cstdint>
#include <optional>
#include <vector>

#include "common/byte_reader.h"

namespace swprof {

namespace cfi_detail {

// DW_EH_PE_* pointer encodings (LSB 5.0 §10.5.1 "DWARF Exception Header
// Encoding"): the low nibble is the value format, the high bits say what the
// value is relative to.
enum : uint8_t {
  kPeAbsptr = 0x00, kPeUleb128 = 0x01, kPeUdata2 = 0x02, kPeUdata4 = 0x03, kPeUdata8 = 0x04,
  kPeSleb128 = 0x09, kPeSdata2 = 0x0a, kPeSdata4 = 0x0b, kPeSdata8 = 0x0c,
  kPePcrel = 0x10, kPeTextrel = 0x20, kPeDatarel = 0x30, kPeFuncrel = 0x40, kPeAligned = 0x50,
  kPeIndirect = 0x80, kPeOmit = 0xff,
};

struct PointerBase {
  uint64_t section_vaddr = 0;  // vaddr of the reader's byte 0 (for pcrel)
  uint64_t datarel = 0;        // base of datarel values (.eh_frame_hdr's start in that section)
};

// Reads one encoded pointer at the reader's cursor. nullopt (cursor
// unspecified) for a truncated value or an unsupported encoding (textrel,
// funcrel, aligned, indirect, omit).
std::optional<uint64_t> read_encoded_pointer(ByteReader& r, uint8_t encoding, const PointerBase& base);

// Entries of an .eh_frame_hdr search table (LSB 5.0 §10.6.2), sorted by pc.
struct EhFrameHdrEntry {
  uint64_t initial_location = 0;  // vaddr of the FDE's first pc
  uint64_t fde_vaddr = 0;         // vaddr of the FDE in .eh_frame
};
// nullopt when the header is malformed or has no search table.
std::optional<std::vector<EhFrameHdrEntry>> parse_eh_frame_hdr(Bytes hdr, uint64_t hdr_vaddr);

// Where the search table starts and how it is encoded, from the header alone.
struct EhFrameHdrTable {
  uint64_t vaddr = 0;     // of the first entry
  uint64_t offset = 0;    // of the first entry, from the start of .eh_frame_hdr
  uint64_t fde_count = 0;
  uint8_t encoding = 0;   // DW_EH_PE_* of every entry field
};
std::optional<EhFrameHdrTable> read_eh_frame_hdr_table(Bytes hdr, uint64_t hdr_vaddr);

}  // namespace cfi_detail

}  // namespace swprof
