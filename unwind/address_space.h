#pragma once
// Which binary and file offset an address belongs to, per process, as of a
// point in the recording. Mappings change (dlopen, exec), so the address
// space is rebuilt from mapping records in recording order; samples take an
// immutable snapshot (shared) of their process's maps.

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "sampler/records.h"
#include "unwind/elf_binary.h"

namespace swprof {

struct Mapping {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t file_offset = 0;
  std::string path;
  std::shared_ptr<const ElfBinary> binary;  // null when the file could not be opened
  uint64_t bias = 0;                        // ELF vaddr = runtime address - bias
  bool executable = false;
  bool build_id_mismatch = false;           // the file on disk is not the one that was mapped

  uint64_t to_vaddr(uint64_t addr) const { return addr - bias; }
};

// A mapping path with no file behind it: anonymous memory ("//anon" in the
// kernel's mapping records; JIT compilers put code there), a memfd, or a
// bracketed name such as "[heap]".
inline bool is_anonymous_path(const std::string& path) {
  return path.empty() || path[0] != '/' || path.starts_with("//anon") || path.starts_with("/memfd:");
}

class ProcessMaps {
 public:
  ProcessMaps() = default;
  ProcessMaps(const ProcessMaps& o) : maps_(o.maps_) {}
  ProcessMaps& operator=(const ProcessMaps& o) {
    maps_ = o.maps_;
    id_ = next_id();
    return *this;
  }

  // The mapping holding addr, or nullptr.
  const Mapping* find(uint64_t addr) const;
  // Adds a mapping, replacing whatever overlapped it (as mmap does).
  void add(Mapping m);
  const std::vector<Mapping>& mappings() const { return maps_; }
  // Names these exact mappings: never 0, never reused (not even after this
  // object is gone), changed by add(). Caches keyed by it need no
  // invalidation.
  uint64_t id() const { return id_; }

 private:
  static uint64_t next_id();

  std::vector<Mapping> maps_;  // sorted by start, non-overlapping
  uint64_t id_ = next_id();
};

class BinaryCache;

// A mapping of `path` at [start, end) from `file_offset`, with its binary
// (checked against `build_id` when one is given) and load bias resolved.
Mapping resolve_mapping(BinaryCache& binaries, uint64_t start, uint64_t end, uint64_t file_offset,
                        const std::string& path, bool executable, const std::vector<uint8_t>& build_id);

// Opens each binary once (by path, checked against the recorded build-id),
// and serves in-memory images recorded in the file (the vDSO).
class BinaryCache {
 public:
  struct Lookup {
    std::shared_ptr<const ElfBinary> binary;
    bool build_id_mismatch = false;
  };
  Lookup get(const std::string& path, const std::vector<uint8_t>& build_id);
  void add_image(const std::string& name, std::vector<uint8_t> bytes);
  // One line per binary that was missing or changed, for the user.
  std::vector<std::string> warnings() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, Lookup> by_path_;
  std::map<std::string, std::shared_ptr<const ElfBinary>> images_;
  std::vector<std::string> warnings_;
};

// All processes of a recording. Feed it records in order; snapshot() gives
// the maps a sample at this point should use.
class AddressSpaces {
 public:
  explicit AddressSpaces(std::shared_ptr<BinaryCache> binaries) : binaries_(std::move(binaries)) {}

  // Replays one record: mappings, forks (a new process starts with its
  // parent's maps), execs (which replace the address space) and memory
  // images (the vDSO). Other records change nothing.
  void apply(const Record& record);
  std::shared_ptr<const ProcessMaps> snapshot(uint32_t pid) const;
  BinaryCache& binaries() { return *binaries_; }

 private:
  void on_mapping(const MappingRecord& m);
  void on_fork(const TaskRecord& t);
  void on_exec(const CommRecord& c);

  std::shared_ptr<BinaryCache> binaries_;
  std::unordered_map<uint32_t, std::shared_ptr<const ProcessMaps>> by_pid_;
};

}  // namespace swprof
