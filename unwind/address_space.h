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

#include "binary/binary_cache.h"
#include "binary/elf_binary.h"
#include "recording/records.h"

namespace swprof {

struct MappingBinary;

struct Mapping {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t file_offset = 0;
  std::string path;
  std::shared_ptr<const ElfBinary> binary;  // null when the file could not be opened
  uint64_t bias = 0;                        // ELF vaddr = runtime address - bias
  bool executable = false;
  bool build_id_mismatch = false;           // the file on disk is not the one that was mapped
  // Set on a mapping whose file is opened on first use (AddressSpaces): its
  // binary, bias and build_id_mismatch are then those of
  // ProcessMaps::find's answer, not of this (unresolved) copy.
  std::shared_ptr<MappingBinary> pending;

  uint64_t to_vaddr(uint64_t addr) const { return addr - bias; }
};

class ProcessMaps {
 public:
  ProcessMaps() = default;
  ProcessMaps(const ProcessMaps& o) : maps_(o.maps_), before_exec_(o.before_exec_) {}
  ProcessMaps& operator=(const ProcessMaps& o) {
    maps_ = o.maps_;
    before_exec_ = o.before_exec_;
    id_ = next_id();
    return *this;
  }
  // The maps of a process that has just called execve: empty, remembering
  // the replaced ones (without what they remembered in turn).
  static ProcessMaps after_exec(const ProcessMaps& replaced);

  // The mapping holding addr, or nullptr. A mapping whose file is opened on
  // first use is opened here (once, from any thread).
  const Mapping* find(uint64_t addr) const;
  // Adds a mapping, replacing whatever overlapped it (as mmap does).
  void add(Mapping m);
  // Every mapping, in address order; those opened on first use are as they
  // were added (find() gives them with their binary).
  const std::vector<Mapping>& mappings() const { return maps_; }
  // Names these exact mappings: never 0, never reused (not even after this
  // object is gone), changed by add(). Caches keyed by it need no
  // invalidation.
  uint64_t id() const { return id_; }
  // The maps this process had before its last execve (nullptr: none). A
  // sample inside execve has the old program's registers while the address
  // space is already the new one: its pc is named from these.
  const std::shared_ptr<const ProcessMaps>& before_exec() const { return before_exec_; }

 private:
  static uint64_t next_id();

  std::vector<Mapping> maps_;  // sorted by start, non-overlapping
  std::shared_ptr<const ProcessMaps> before_exec_;
  uint64_t id_ = next_id();
};

// A mapping of `path` at [start, end) from `file_offset`, with its binary
// (checked against `build_id` when one is given) and load bias resolved.
// `warning_order` places a warning about the file among the cache's others
// (BinaryCache::get).
Mapping resolve_mapping(BinaryCache& binaries, uint64_t start, uint64_t end, uint64_t file_offset,
                        const std::string& path, bool executable, const std::vector<uint8_t>& build_id,
                        uint64_t warning_order = BinaryCache::kInOrderAsked);

// All processes of a recording. Feed it records in order; snapshot() gives
// the maps a sample at this point should use. A mapped file is opened only
// when an address in it is looked up (a sample's pc or return address), so
// files no sample reaches are never opened, nor warned about when missing
// (unless every file is to be opened at once).
class AddressSpaces {
 public:
  // `open_on_first_use` false: every mapped file is opened when its mapping
  // record is applied.
  explicit AddressSpaces(std::shared_ptr<BinaryCache> binaries, bool open_on_first_use = true)
      : binaries_(std::move(binaries)), open_on_first_use_(open_on_first_use) {}

  // Replays one record: mappings, forks (a new process starts with its
  // parent's maps), execs (which replace the address space) and memory
  // images (the vDSO). Other records change nothing.
  void apply(const Record& record);
  std::shared_ptr<const ProcessMaps> snapshot(uint32_t pid) const;
  BinaryCache& binaries() { return *binaries_; }

 private:
  void on_mapping(const MappingRecord& m);
  Mapping unopened_mapping(const MappingRecord& r);
  Mapping opened_mapping(const MappingRecord& r);
  void on_fork(const TaskRecord& t);
  void on_exec(const CommRecord& c);

  std::shared_ptr<BinaryCache> binaries_;
  std::unordered_map<uint32_t, std::shared_ptr<const ProcessMaps>> by_pid_;
  bool open_on_first_use_;
  uint64_t mappings_seen_ = 0;  // orders the warnings of files opened on first use
};

}  // namespace swprof
