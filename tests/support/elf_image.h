#pragma once
// A minimal 64-bit little-endian x86-64 ELF image, made in memory from a list
// of sections (no program headers): for tests and fuzz targets that hand
// section bytes to code reading them through libelf. Header only, so that
// the fuzz targets (fuzz/cfi_fuzz.cpp) include it without the test library.
//
//   Elf64_Ehdr | section bytes (8-aligned) ... | .shstrtab | section headers
//   (index 0: the null section; the sections in order; .shstrtab last)

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace swprof::testing {

struct ImageSection {
  std::string name;
  uint32_t type = SHT_PROGBITS;
  uint64_t flags = 0;
  uint64_t addr = 0;           // sh_addr; SHF_ALLOC is added when it is not 0
  std::vector<uint8_t> bytes;  // as stored in the file
};

// An ELF header for x86-64, 64-bit little-endian, of type `type` (ET_DYN,
// ET_EXEC), with no program or section headers yet.
inline Elf64_Ehdr x86_64_elf_header(uint16_t type) {
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = type;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  return eh;
}

// Pads `image` to 8 bytes, then appends `bytes`.
inline void append_aligned(std::vector<uint8_t>& image, const uint8_t* bytes, size_t size) {
  image.resize((image.size() + 7) & ~size_t{7});
  image.insert(image.end(), bytes, bytes + size);
}

// Appends `bytes` 8-aligned as the contents of a section with header `sh`.
inline Elf64_Shdr append_section(std::vector<uint8_t>& image, Elf64_Shdr sh, const uint8_t* bytes, size_t size) {
  append_aligned(image, bytes, 0);
  sh.sh_offset = image.size();
  sh.sh_size = size;
  sh.sh_addralign = 1;
  append_aligned(image, bytes, size);
  return sh;
}

inline std::vector<uint8_t> make_elf_image(const std::vector<ImageSection>& sections) {
  std::vector<uint8_t> image(sizeof(Elf64_Ehdr));
  std::vector<Elf64_Shdr> headers(1);  // the null section
  std::string names(1, '\0');
  for (const ImageSection& s : sections) {
    Elf64_Shdr sh{};
    sh.sh_name = static_cast<uint32_t>(names.size());
    sh.sh_type = s.type;
    sh.sh_flags = s.flags | (s.addr ? SHF_ALLOC : 0);
    sh.sh_addr = s.addr;
    headers.push_back(append_section(image, sh, s.bytes.data(), s.bytes.size()));
    names += s.name + '\0';
  }
  Elf64_Shdr strtab{};
  strtab.sh_name = static_cast<uint32_t>(names.size());
  names += std::string(".shstrtab") + '\0';
  strtab.sh_type = SHT_STRTAB;
  headers.push_back(
      append_section(image, strtab, reinterpret_cast<const uint8_t*>(names.data()), names.size()));

  Elf64_Ehdr eh = x86_64_elf_header(ET_DYN);
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = static_cast<uint16_t>(headers.size());
  eh.e_shstrndx = static_cast<uint16_t>(headers.size() - 1);
  append_aligned(image, nullptr, 0);
  eh.e_shoff = image.size();
  append_aligned(image, reinterpret_cast<const uint8_t*>(headers.data()), headers.size() * sizeof(Elf64_Shdr));
  std::memcpy(image.data(), &eh, sizeof eh);
  return image;
}

}  // namespace swprof::testing
