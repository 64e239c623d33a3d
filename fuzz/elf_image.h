#pragma once
// A minimal 64-bit little-endian x86-64 ELF image, made in memory from a list
// of sections (no program headers): what the CFI target needs to hand
// arbitrary section bytes to code that reads them through libelf.
//
//   Elf64_Ehdr | section bytes (8-aligned) ... | .shstrtab | section headers
//   (index 0: the null section; the sections in order; .shstrtab last)

#include <elf.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/byte_reader.h"

namespace swprof::fuzz {

struct ImageSection {
  std::string name;
  uint64_t addr = 0;  // sh_addr; SHF_ALLOC is set when it is not 0
  Bytes bytes;
};

inline void append_aligned(std::vector<uint8_t>& image, Bytes bytes) {
  image.resize((image.size() + 7) & ~size_t{7});
  image.insert(image.end(), bytes.begin(), bytes.end());
}

template <typename T>
void append_struct(std::vector<uint8_t>& image, const T& value) {
  const auto* p = reinterpret_cast<const uint8_t*>(&value);
  append_aligned(image, Bytes(p, sizeof value));
}

inline std::vector<uint8_t> make_elf_image(const std::vector<ImageSection>& sections) {
  std::vector<uint8_t> image(sizeof(Elf64_Ehdr));
  std::vector<Elf64_Shdr> headers(1);  // the null section
  std::string names(1, '\0');
  for (const ImageSection& s : sections) {
    Elf64_Shdr sh{};
    sh.sh_name = static_cast<uint32_t>(names.size());
    sh.sh_type = SHT_PROGBITS;
    sh.sh_flags = s.addr ? SHF_ALLOC : 0;
    sh.sh_addr = s.addr;
    append_aligned(image, Bytes());
    sh.sh_offset = image.size();
    sh.sh_size = s.bytes.size();
    sh.sh_addralign = 1;
    append_aligned(image, s.bytes);
    headers.push_back(sh);
    names += s.name + '\0';
  }
  Elf64_Shdr strtab{};
  strtab.sh_name = static_cast<uint32_t>(names.size());
  names += std::string(".shstrtab") + '\0';
  strtab.sh_type = SHT_STRTAB;
  append_aligned(image, Bytes());
  strtab.sh_offset = image.size();
  strtab.sh_size = names.size();
  strtab.sh_addralign = 1;
  append_aligned(image, Bytes(reinterpret_cast<const uint8_t*>(names.data()), names.size()));
  headers.push_back(strtab);

  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_DYN;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = static_cast<uint16_t>(headers.size());
  eh.e_shstrndx = static_cast<uint16_t>(headers.size() - 1);
  append_aligned(image, Bytes());
  eh.e_shoff = image.size();
  for (const Elf64_Shdr& sh : headers) append_struct(image, sh);
  std::memcpy(image.data(), &eh, sizeof eh);
  return image;
}

}  // namespace swprof::fuzz
