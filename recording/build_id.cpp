#include "recording/build_id.h"

#include <elfutils/libdwelf.h>
#include <libelf.h>

#include <cstring>
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
  return read_build_id_of_fd(file.value->fd.get());
}

std::optional<BuildId> read_build_id_of_fd(int fd) {
  ensure_libelf();
  ElfPtr elf(elf_begin(fd, ELF_C_READ_MMAP, nullptr));
  return build_id_of(elf.get());
}

std::optional<BuildId> read_build_id(Bytes image) {
  ensure_libelf();
  // elf_memory wants a mutable pointer but does not write through ELF_C_READ.
  ElfPtr elf(elf_memory(const_cast<char*>(reinterpret_cast<const char*>(image.data())), image.size()));
  return build_id_of(elf.get());
}

std::optional<BuildId> build_id_of_notes(Bytes notes) {
  constexpr uint32_t kNtGnuBuildId = 3;
  const auto padded = [](uint32_t n) { return (uint64_t{n} + 3) & ~uint64_t{3}; };
  ByteReader r(notes);
  while (r.remaining() >= 12) {
    const uint32_t name_size = *r.read<uint32_t>(), desc_size = *r.read<uint32_t>(), type = *r.read<uint32_t>();
    auto name = r.bytes(padded(name_size));
    auto desc = name ? r.bytes(padded(desc_size)) : std::nullopt;
    if (!desc) return std::nullopt;
    const bool gnu = name_size == 4 && std::memcmp(name->data(), "GNU", 4) == 0;
    if (gnu && type == kNtGnuBuildId && desc_size > 0) return BuildId(desc->data(), desc->data() + desc_size);
  }
  return std::nullopt;
}

std::optional<BuildId> running_kernel_build_id(const std::string& notes_path) {
  constexpr uint64_t kMaxNotesBytes = uint64_t{1} << 20;
  auto text = read_regular_file(notes_path, kMaxNotesBytes);
  if (!text) return std::nullopt;
  return build_id_of_notes(Bytes(reinterpret_cast<const uint8_t*>(text.value->data()), text.value->size()));
}

}  // namespace swprof
