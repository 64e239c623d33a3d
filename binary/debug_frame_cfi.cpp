#include "binary/debug_frame_cfi.h"

#include <elf.h>
#include <gelf.h>

#include <bit>
#include <cstring>
#include <string_view>

namespace swprof {
namespace {

constexpr std::string_view kNames{"\0.debug_frame\0.shstrtab\0", 24};
constexpr uint32_t kDebugFrameName = 1;  // offsets in kNames
constexpr uint32_t kShstrtabName = 14;

size_t align8(size_t n) { return (n + 7) & ~size_t{7}; }

bool native_64bit(const GElf_Ehdr& ehdr) {
  constexpr unsigned char kNative = std::endian::native == std::endian::little ? ELFDATA2LSB : ELFDATA2MSB;
  return ehdr.e_ident[EI_CLASS] == ELFCLASS64 && ehdr.e_ident[EI_DATA] == kNative;
}

Elf64_Shdr section_header(uint32_t name, uint32_t type, uint64_t offset, uint64_t size) {
  Elf64_Shdr sh{};
  sh.sh_name = name;
  sh.sh_type = type;
  sh.sh_offset = offset;
  sh.sh_size = size;
  sh.sh_addralign = 1;
  return sh;
}

// The image of the header comment (debug_frame_cfi.h), for a file whose ELF
// header is `file`.
std::vector<uint8_t> debug_frame_image(const GElf_Ehdr& file, Bytes debug_frame) {
  const size_t frame_at = sizeof(Elf64_Ehdr);
  const size_t names_at = frame_at + debug_frame.size();
  const size_t headers_at = align8(names_at + kNames.size());
  std::vector<uint8_t> image(headers_at + 3 * sizeof(Elf64_Shdr));

  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, file.e_ident, EI_NIDENT);
  eh.e_type = file.e_type;
  eh.e_machine = file.e_machine;
  eh.e_version = file.e_version;
  eh.e_flags = file.e_flags;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_shoff = headers_at;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = 3;
  eh.e_shstrndx = 2;
  const Elf64_Shdr headers[3] = {
      Elf64_Shdr{},
      section_header(kDebugFrameName, SHT_PROGBITS, frame_at, debug_frame.size()),
      section_header(kShstrtabName, SHT_STRTAB, names_at, kNames.size()),
  };
  std::memcpy(image.data(), &eh, sizeof eh);
  std::memcpy(image.data() + frame_at, debug_frame.data(), debug_frame.size());
  std::memcpy(image.data() + names_at, kNames.data(), kNames.size());
  std::memcpy(image.data() + headers_at, headers, sizeof headers);
  return image;
}

}  // namespace

std::unique_ptr<DebugFrameCfi> DebugFrameCfi::open(Elf* elf, const SectionRef& debug_frame) {
  GElf_Ehdr ehdr;
  const Bytes bytes = debug_frame.bytes();
  if (!elf || !gelf_getehdr(elf, &ehdr) || !native_64bit(ehdr) || bytes.empty()) return nullptr;
  std::unique_ptr<DebugFrameCfi> out(new DebugFrameCfi());
  out->image_ = debug_frame_image(ehdr, bytes);
  out->elf_.reset(elf_memory(reinterpret_cast<char*>(out->image_.data()), out->image_.size()));
  if (!out->elf_) return nullptr;
  out->dwarf_.reset(dwarf_begin_elf(out->elf_.get(), DWARF_C_READ, nullptr));
  if (!out->dwarf_) return nullptr;
  out->cfi_ = dwarf_getcfi(out->dwarf_.get());
  if (!out->cfi_) return nullptr;
  return out;
}

}  // namespace swprof
