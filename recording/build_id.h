#pragma once
// GNU build-id of an ELF file or in-memory ELF image (elfutils' dwelf).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/byte_reader.h"
#include "common/hex.h"

namespace swprof {

using BuildId = std::vector<uint8_t>;

// The build-id note of the ELF file at `path`; nullopt when the file cannot be
// read, is not ELF, or has no build-id.
std::optional<BuildId> read_build_id(const std::string& path);

// The same for an opened file (read with pread: its offset is left alone).
std::optional<BuildId> read_build_id_of_fd(int fd);

// The same for an ELF image in memory (for example the vDSO).
std::optional<BuildId> read_build_id(Bytes image);

// The GNU build-id in a list of ELF notes (Elf64_Nhdr, then the name and
// the description, each padded to 4 bytes), as /sys/kernel/notes holds the
// running kernel's; nullopt when there is none or the list is damaged.
std::optional<BuildId> build_id_of_notes(Bytes notes);

// The running kernel's build-id, from its notes (/sys/kernel/notes).
std::optional<BuildId> running_kernel_build_id(const std::string& notes_path = "/sys/kernel/notes");

inline std::string to_hex(const BuildId& id) { return to_hex(Bytes(id.data(), id.size())); }

}  // namespace swprof
