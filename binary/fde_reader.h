#pragma once
// Finding the FDEs of a CFI section and what their CIEs say: through
// .eh_frame_hdr's sorted table, or by walking .eh_frame or .debug_frame
// entry by entry (libdw's dwarf_next_cfi). Each FDE comes out as its pc
// range and its CFA program, each CIE as what its FDEs share.

#include <elfutils/libdw.h>
#include <libelf.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "binary/cfa_program.h"
#include "binary/eh_frame_hdr.h"
#include "common/byte_reader.h"

namespace swprof {

// One section of a libelf handle, with its ELF virtual address.
struct SectionRef {
  Elf_Data* data = nullptr;
  uint64_t vaddr = 0;
  Bytes bytes() const {
    if (!data || !data->d_buf) return {};
    return Bytes(static_cast<const uint8_t*>(data->d_buf), data->d_size);
  }
};

// The section named `name`, nullopt when absent or without file bytes.
std::optional<SectionRef> find_section(Elf* elf, std::string_view name);

// One FDE: the pcs [lo, hi) it covers and its program.
struct FdeRange {
  uint64_t lo, hi;
  Dwarf_Off cie_offset;
  Bytes instructions;  // the FDE's CFA program
};

// What the FDEs of one CIE share (LSB 5.0 §10.5.1.1; DWARF 5 §6.4.1).
struct CieInfo {
  uint8_t fde_encoding = cfi_detail::kPeAbsptr;  // the 'R' augmentation
  bool has_z = false;                // FDEs hold a uleb128 length and augmentation data
  size_t fde_augmentation_size = 0;  // without 'z': libdw's count of those bytes
  bool signal = false;               // the 'S' augmentation
  uint64_t ra_column = 0;
  CieProgram program;
  std::optional<CfaState> initial;   // nullopt: its initial instructions are invalid
};

// Reads the FDEs and CIEs of one ELF image; remembers each CIE it has read.
// Corrupt entries are skipped and counted, never thrown.
class FdeReader {
 public:
  // `elf` must outlive the reader.
  explicit FdeReader(Elf* elf);

  // False when `elf` is not a readable ELF file.
  bool ok() const { return ident_ != nullptr; }
  // The .eh_frame FDEs that .eh_frame_hdr's table lists (empty without one).
  std::vector<FdeRange> eh_frame_fdes_from_hdr(const SectionRef& eh_frame);
  // Every FDE of `section` (.eh_frame when `eh_frame`, else .debug_frame), in section order.
  std::vector<FdeRange> walk_fdes(const SectionRef& section, bool eh_frame);
  // The CIE at `cie_offset`, nullptr when it is unreadable.
  const CieInfo* cie_info(const SectionRef& section, bool eh_frame, Dwarf_Off cie_offset);

  // FDEs (or CIEs) left out as corrupt so far.
  size_t skipped_fdes() const { return skipped_fdes_; }

 private:
  std::optional<FdeRange> decode_fde(const SectionRef& section, bool eh_frame, const Dwarf_FDE& fde);
  std::optional<CieInfo> read_cie(const SectionRef& section, bool eh_frame, Dwarf_Off cie_offset) const;
  bool read_cie_augmentation(const Dwarf_CIE& entry, CieInfo& cie) const;

  Elf* elf_;
  const unsigned char* ident_ = nullptr;
  std::map<std::pair<bool, Dwarf_Off>, std::optional<CieInfo>> cies_;  // by (eh_frame, offset)
  size_t skipped_fdes_ = 0;
};

}  // namespace swprof
