#include "recording/build_id.h"

#include <elfutils/libdwelf.h>
#include <libelf.h>

#include <memory>

#include "common/elf_handle.h"
#include "common/regular_file.h"

namespace swprof {
namespace {

void ensure_libelf() {
  static const bool ready = elf_version(EV_CURRENT) != EV_NONE;
  (void)ready;
}

std::optional<BuildId> build_id_of(Elf* elf) {
  if (!elf || elf_kind(elf) != ELF_K_ELF) return std::nullopt;
  const void* data = nullptr;
  ssize_t n = dwelf_elf_gnu_build_id(elf, &data);
  if (n <= 0 || !data) return std::nullopt;
  const auto* p = static_cast<const uint8_t*>(data);
  return BuildId(p, p + n);
}

}  // namespace

std::optional<BuildId> read_build_id(const std::string& path) {
  ensure_libelf();
  // A mapped path may be a FIFO or a device: only a regular file is opened.
  auto file = open_regular_file(path);
  if (!file) return std::nullopt;
  ElfPtr elf(elf_begin(file.value->fd.get(), ELF_C_READ_MMAP, nullptr));
  return build_id_of(elf.get());
}

std::optional<BuildId> read_build_id(Bytes image) {
  ensure_libelf();
  // elf_memory wants a mutable pointer but does not write through ELF_C_READ.
  ElfPtr elf(elf_memory(const_cast<char*>(reinterpret_cast<const char*>(image.data())), image.size()));
  return build_id_of(elf.get());
}


}  // namespace swprof
