#include "binary/fde_reader.h"

#include <gelf.h>

#include <algorithm>
#include <cstdint>

namespace swprof {

using namespace cfi_detail;

std::optional<SectionRef> find_section(Elf* elf, std::string_view name) {
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return std::nullopt;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS) continue;
    const char* sname = elf_strptr(elf, shstrndx, sh.sh_name);
    if (!sname || name != sname) continue;
    // A compressed section (Go compresses its DWARF, .debug_frame too): its
    // bytes are not CFI, and having libdw decompress it would write the
    // section header of a read-only image.
    if (sh.sh_flags & SHF_COMPRESSED) return std::nullopt;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) return std::nullopt;
    return SectionRef{data, sh.sh_addr};
  }
  return std::nullopt;
}

FdeReader::FdeReader(Elf* elf) : elf_(elf) {
  if (elf_ && elf_kind(elf_) == ELF_K_ELF) ident_ = reinterpret_cast<const unsigned char*>(elf_getident(elf_, nullptr));
}

std::vector<FdeRange> FdeReader::eh_frame_fdes_from_hdr(const SectionRef& eh_frame) {
  auto hdr_section = find_section(elf_, ".eh_frame_hdr");
  if (!hdr_section) return {};
  auto entries = parse_eh_frame_hdr(hdr_section->bytes(), hdr_section->vaddr);
  if (!entries) return {};
  std::vector<FdeRange> fdes;
  fdes.reserve(entries->size());
  for (const EhFrameHdrEntry& e : *entries) {
    const uint64_t offset = e.fde_vaddr - eh_frame.vaddr;
    Dwarf_CFI_Entry entry;
    Dwarf_Off next = 0;
    if (e.fde_vaddr < eh_frame.vaddr || offset >= eh_frame.data->d_size ||
        dwarf_next_cfi(ident_, eh_frame.data, true, offset, &next, &entry) != 0 || dwarf_cfi_cie_p(&entry)) {
      ++skipped_fdes_;
      continue;
    }
    auto range = decode_fde(eh_frame, true, entry.fde);
    if (!range) {
      ++skipped_fdes_;
      continue;
    }
    if (range->lo != e.initial_location) ++skipped_fdes_;  // the table disagrees with the FDE
    else if (range->hi > range->lo) fdes.push_back(*range);
  }
  return fdes;
}

std::vector<FdeRange> FdeReader::walk_fdes(const SectionRef& section, bool eh_frame) {
  std::vector<FdeRange> fdes;
  Dwarf_Off offset = 0;
  while (offset < section.data->d_size) {
    Dwarf_CFI_Entry entry;
    Dwarf_Off next = 0;
    const int rc = dwarf_next_cfi(ident_, section.data, eh_frame, offset, &next, &entry);
    if (rc == 1) break;  // the end (or a zero terminator)
    if (rc != 0) {
      ++skipped_fdes_;
      // libdw sets `next` when the broken entry can be stepped over.
      if (next == static_cast<Dwarf_Off>(-1) || next <= offset) break;
      offset = next;
      continue;
    }
    if (next <= offset) break;
    offset = next;
    if (dwarf_cfi_cie_p(&entry)) continue;
    auto range = decode_fde(section, eh_frame, entry.fde);
    if (!range) ++skipped_fdes_;
    else if (range->hi > range->lo) fdes.push_back(*range);
  }
  return fdes;
}

// initial_location and address_range of an FDE, encoded with its CIE's 'R'
// encoding (LSB 5.0 §10.5.1.2; the range uses only the value format), and
// the instructions after its augmentation data.
// .debug_frame FDEs hold plain 8-byte addresses (DWARF 5 §6.4.1).
std::optional<FdeRange> FdeReader::decode_fde(const SectionRef& section, bool eh_frame, const Dwarf_FDE& fde) {
  const CieInfo* cie = cie_info(section, eh_frame, fde.CIE_pointer);
  if (!cie) return std::nullopt;
  const auto* section_start = static_cast<const uint8_t*>(section.data->d_buf);
  if (!fde.start || fde.end < fde.start) return std::nullopt;
  ByteReader r(Bytes(fde.start, static_cast<size_t>(fde.end - fde.start)));
  const PointerBase base{section.vaddr + static_cast<uint64_t>(fde.start - section_start), 0};
  auto lo = read_encoded_pointer(r, cie->fde_encoding, base);
  auto length = read_encoded_pointer(r, cie->fde_encoding & 0x0f, base);
  if (!lo || !length) return std::nullopt;
  uint64_t hi = 0;
  if (__builtin_add_overflow(*lo, *length, &hi)) return std::nullopt;
  std::optional<uint64_t> augmentation = cie->fde_augmentation_size;
  if (cie->has_z) augmentation = read_uleb128(r);
  if (!augmentation || !r.skip(static_cast<size_t>(std::min<uint64_t>(*augmentation, SIZE_MAX)))) return std::nullopt;
  auto instructions = r.bytes(r.remaining());
  return FdeRange{*lo, hi, fde.CIE_pointer, *instructions};
}

const CieInfo* FdeReader::cie_info(const SectionRef& section, bool eh_frame, Dwarf_Off cie_offset) {
  auto [it, inserted] = cies_.try_emplace({eh_frame, cie_offset});
  if (inserted) it->second = read_cie(section, eh_frame, cie_offset);
  return it->second ? &*it->second : nullptr;
}

// The CIE at `cie_offset`: the FDE pointer encoding is the 'R' entry of its
// 'z' augmentation data (LSB 5.0 §10.5.1.1), absptr when it has none.
std::optional<CieInfo> FdeReader::read_cie(const SectionRef& section, bool eh_frame, Dwarf_Off cie_offset) const {
  Dwarf_CFI_Entry entry;
  Dwarf_Off next = 0;
  if (dwarf_next_cfi(ident_, section.data, eh_frame, cie_offset, &next, &entry) != 0 || !dwarf_cfi_cie_p(&entry) ||
      !entry.cie.augmentation)
    return std::nullopt;
  CieInfo cie;
  const std::string_view aug = entry.cie.augmentation;
  cie.has_z = !aug.empty() && aug[0] == 'z';
  cie.fde_augmentation_size = entry.cie.fde_augmentation_data_size;
  cie.signal = aug.find('S') != std::string_view::npos;
  cie.ra_column = entry.cie.return_address_register;
  if (eh_frame && !aug.empty() && !read_cie_augmentation(entry.cie, cie)) return std::nullopt;
  const auto* section_start = static_cast<const uint8_t*>(section.data->d_buf);
  cie.program.code_alignment = entry.cie.code_alignment_factor;
  cie.program.data_alignment = entry.cie.data_alignment_factor;
  cie.program.fde_encoding = cie.fde_encoding;
  cie.program.section_vaddr = section.vaddr;
  cie.program.section_start = section_start;
  if (entry.cie.initial_instructions && entry.cie.initial_instructions_end >= entry.cie.initial_instructions)
    cie.program.initial_instructions =
        Bytes(entry.cie.initial_instructions,
              static_cast<size_t>(entry.cie.initial_instructions_end - entry.cie.initial_instructions));
  cie.initial = cie_initial_state(cie.program);
  return cie;
}

// The 'z' augmentation data of an .eh_frame CIE, letter by letter; false
// when it cannot be read.
bool FdeReader::read_cie_augmentation(const Dwarf_CIE& entry, CieInfo& cie) const {
  const std::string_view aug = entry.augmentation;
  if (!cie.has_z || !entry.augmentation_data) return false;
  ByteReader r(Bytes(entry.augmentation_data, entry.augmentation_data_size));
  for (char c : aug.substr(1)) {
    bool ok = true;
    if (c == 'R') {
      ok = r.read_into(cie.fde_encoding);
    } else if (c == 'L') {
      ok = r.skip(1);
    } else if (c == 'P') {
      // The personality pointer: skip its encoded value (only its format matters).
      uint8_t personality = 0;
      ok = r.read_into(personality) && read_encoded_pointer(r, personality & 0x0f, {}).has_value();
    } else if (c != 'S' && c != 'B' && c != 'G') {
      ok = false;  // an unknown letter: the data after it cannot be located
    }
    if (!ok) return false;
  }
  return true;
}

}  // namespace swprof
