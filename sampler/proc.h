#pragma once
// Reading /proc: threads, mappings and names of a live process.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recording/records.h"

namespace swprof {

struct ProcMapping {
  uint64_t start = 0;
  uint64_t end = 0;
  std::string perms;  // "r-xp"
  uint64_t offset = 0;
  uint32_t dev_major = 0;
  uint32_t dev_minor = 0;
  uint64_t inode = 0;
  std::string path;   // may be empty, "[vdso]", "[stack]", or a file path
};

// Parses the text of /proc/PID/maps. Malformed lines are skipped.
std::vector<ProcMapping> parse_proc_maps(const std::string& text);

// The executable mappings of /proc/PID/maps as the kernel's mapping records
// would report them (code only), marked synthesized and stamped `time`.
// Empty when the file cannot be read.
std::vector<MappingRecord> read_code_mappings(pid_t pid, uint64_t time);
std::vector<MappingRecord> code_mappings(pid_t pid, const std::vector<ProcMapping>& maps, uint64_t time);

// The contents of a regular file (most /proc and /sys files are), at most
// max_bytes; nullopt when it cannot be read, is not a regular file (a FIFO
// or a device is never opened) or is larger.
inline constexpr uint64_t kMaxTextFileBytes = uint64_t{256} << 20;
std::optional<std::string> read_text_file(const std::string& path, uint64_t max_bytes = kMaxTextFileBytes);

std::vector<pid_t> list_threads(pid_t pid);
std::string thread_comm(pid_t pid, pid_t tid);

// Process state letter from /proc/PID/stat ('R', 'S', 'Z', ...); nullopt when gone.
std::optional<char> process_state(pid_t pid);
bool process_alive(pid_t pid);  // exists and is not a zombie

// The [vdso] bytes of this process (all processes share the same vDSO image
// of the running kernel), or empty when not found.
std::vector<uint8_t> read_own_vdso();

}  // namespace swprof
