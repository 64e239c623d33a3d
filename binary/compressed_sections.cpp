#include "binary/compressed_sections.h"

#include <elfutils/libdwelf.h>

#include <cstring>
#include <optional>

namespace swprof {
namespace {

// GNU's .zdebug_* header: "ZLIB" and the size, 8 bytes big-endian.
constexpr uint64_t kGnuHeaderBytes = 12;

uint64_t chdr_bytes(Elf* elf) { return gelf_getclass(elf) == ELFCLASS32 ? sizeof(Elf32_Chdr) : sizeof(Elf64_Chdr); }

// The name table's index, when its names may be read without inflating
// more than the bounds allow.
std::optional<size_t> readable_names(Elf* elf) {
  size_t names = 0;
  GElf_Shdr header;
  Elf_Scn* scn = nullptr;
  if (elf_getshdrstrndx(elf, &names) != 0 || !(scn = elf_getscn(elf, names)) || !gelf_getshdr(scn, &header))
    return std::nullopt;
  if (!compressed_section_problem(elf, scn, header, "").empty()) return std::nullopt;
  return names;
}

}  // namespace

bool is_dwarf_section(std::string_view name) { return name.starts_with(".debug_") || name.starts_with(".zdebug_"); }

std::string inflation_problem(uint64_t claimed, uint64_t packed) {
  // Over a GiB packed, any claim under a GiB is within 64 times it (and
  // below, packed * 64 cannot overflow).
  if (claimed <= kMaxSectionBytes && (packed >= kMaxSectionBytes || claimed <= packed * kMaxInflation)) return "";
  return "claims " + std::to_string(claimed) + " bytes uncompressed from " + std::to_string(packed);
}

std::string compressed_section_problem(Elf* elf, Elf_Scn* scn, const GElf_Shdr& header, std::string_view name) {
  if (header.sh_type == SHT_NOBITS) return "";
  if ((header.sh_flags & SHF_COMPRESSED) != 0) {
    GElf_Chdr chdr;
    const uint64_t head = chdr_bytes(elf);
    if (!gelf_getchdr(scn, &chdr) || header.sh_size < head) return "";
    return inflation_problem(chdr.ch_size, header.sh_size - head);
  }
  if (name.starts_with(".zdebug_")) {
    const ssize_t claimed = dwelf_scn_gnu_compressed_size(scn);
    if (claimed < 0 || header.sh_size < kGnuHeaderBytes) return "";
    return inflation_problem(static_cast<uint64_t>(claimed), header.sh_size - kGnuHeaderBytes);
  }
  return "";
}

std::vector<OversizedSection> oversized_compressed_sections(Elf* elf) {
  std::vector<OversizedSection> out;
  if (!elf || elf_kind(elf) != ELF_K_ELF) return out;
  const std::optional<size_t> names = readable_names(elf);
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr header;
    if (!gelf_getshdr(scn, &header)) continue;
    const char* text = names ? elf_strptr(elf, *names, header.sh_name) : nullptr;
    std::string name = text ? text : "";
    std::string problem = compressed_section_problem(elf, scn, header, name);
    if (!problem.empty()) out.push_back({elf_ndxscn(scn), std::move(name), std::move(problem)});
  }
  return out;
}

bool set_aside_section(std::span<uint8_t> file, Elf* elf, size_t index) {
  GElf_Ehdr eh;
  size_t count = 0;
  if (!elf || !gelf_getehdr(elf, &eh) || eh.e_ident[EI_DATA] != ELFDATA2LSB || elf_getshdrnum(elf, &count) != 0 ||
      index == 0 || index >= count)
    return false;
  const bool wide = eh.e_ident[EI_CLASS] == ELFCLASS64;
  const uint64_t size = wide ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
  if (eh.e_shentsize != size || eh.e_shoff > file.size() || (file.size() - eh.e_shoff) / size <= index) return false;
  uint8_t* at = file.data() + eh.e_shoff + index * size;
  // sh_type (4 bytes) at 4, sh_flags (8 or 4 bytes) at 8, in both classes.
  const uint32_t nobits = SHT_NOBITS;
  std::memcpy(at + 4, &nobits, sizeof nobits);
  if (wide) {
    uint64_t flags = 0;
    std::memcpy(&flags, at + 8, sizeof flags);
    flags &= ~static_cast<uint64_t>(SHF_COMPRESSED);
    std::memcpy(at + 8, &flags, sizeof flags);
  } else {
    uint32_t flags = 0;
    std::memcpy(&flags, at + 8, sizeof flags);
    flags &= ~static_cast<uint32_t>(SHF_COMPRESSED);
    std::memcpy(at + 8, &flags, sizeof flags);
  }
  // Renamed as well, for lookups by name that do not look at the type.
  GElf_Shdr names_header;
  GElf_Shdr header;
  const std::optional<size_t> names = readable_names(elf);
  if (names && gelf_getshdr(elf_getscn(elf, *names), &names_header) && gelf_getshdr(elf_getscn(elf, index), &header) &&
      names_header.sh_type != SHT_NOBITS && header.sh_name < names_header.sh_size &&
      names_header.sh_offset <= file.size() && header.sh_name < file.size() - names_header.sh_offset)
    file[names_header.sh_offset + header.sh_name] = 'X';
  return true;
}

}  // namespace swprof
