#include "symbolize/compressed_sections.h"

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include <cstring>

namespace swprof {
namespace {

// GNU's .zdebug_* header: "ZLIB" and the size, 8 bytes big-endian.
constexpr uint64_t kGnuHeaderBytes = 12;

std::string section_name(Elf* elf, size_t names, const GElf_Shdr& header) {
  const char* name = elf_strptr(elf, names, header.sh_name);
  return name ? name : "";
}

}  // namespace

bool is_dwarf_section(std::string_view name) { return name.starts_with(".debug_") || name.starts_with(".zdebug_"); }

std::string inflation_problem(uint64_t claimed, uint64_t packed) {
  if (claimed <= kMaxSectionBytes && claimed / kMaxInflation <= packed) return "";
  return "claims " + std::to_string(claimed) + " bytes uncompressed from " + std::to_string(packed);
}

std::vector<OversizedSection> oversized_compressed_sections(Elf* elf) {
  std::vector<OversizedSection> out;
  size_t names = 0;
  if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &names) != 0) return out;
  const uint64_t chdr_bytes = gelf_getclass(elf) == ELFCLASS32 ? sizeof(Elf32_Chdr) : sizeof(Elf64_Chdr);
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr header;
    if (!gelf_getshdr(scn, &header) || header.sh_type == SHT_NOBITS) continue;
    std::string name = section_name(elf, names, header);
    std::string problem;
    if ((header.sh_flags & SHF_COMPRESSED) != 0) {
      GElf_Chdr chdr;
      if (!gelf_getchdr(scn, &chdr) || header.sh_size < chdr_bytes) continue;
      problem = inflation_problem(chdr.ch_size, header.sh_size - chdr_bytes);
    } else if (name.starts_with(".zdebug_")) {
      const ssize_t claimed = dwelf_scn_gnu_compressed_size(scn);
      if (claimed < 0 || header.sh_size < kGnuHeaderBytes) continue;
      problem = inflation_problem(static_cast<uint64_t>(claimed), header.sh_size - kGnuHeaderBytes);
    }
    if (!problem.empty()) out.push_back({elf_ndxscn(scn), std::move(name), std::move(problem)});
  }
  return out;
}

bool rename_section(std::span<uint8_t> file, Elf* elf, size_t index) {
  size_t names = 0;
  GElf_Shdr names_header;
  GElf_Shdr header;
  if (!elf || elf_getshdrstrndx(elf, &names) != 0 || !gelf_getshdr(elf_getscn(elf, names), &names_header) ||
      !gelf_getshdr(elf_getscn(elf, index), &header))
    return false;
  if (header.sh_name >= names_header.sh_size || names_header.sh_offset > file.size() ||
      header.sh_name >= file.size() - names_header.sh_offset)
    return false;
  file[names_header.sh_offset + header.sh_name] = 'X';
  return true;
}

}  // namespace swprof
