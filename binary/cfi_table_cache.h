#pragma once
// The CFI tables of every binary, each opened once (lazy_cfi_table.h: its
// FDEs are compiled as lookups need them).

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "binary/cfi_table.h"
#include "binary/elf_binary.h"
#include "binary/lazy_cfi_table.h"

namespace swprof {

class LazyCfiTable;

// Tables shared by all unwinding threads: each binary's is opened once, by
// the first thread that needs it, while other threads keep going on other
// binaries; its FDEs are compiled on their first lookup from any thread.
// With the default options the table is the binary's own
// (ElfBinary::cfi_table(), shared with every other consumer). The cache keeps each binary alive, so a `const ElfBinary*`
// stays a unique key for the cache's lifetime.
class CfiTableCache {
 public:
  CfiTableCache() = default;
  explicit CfiTableCache(CfiCompileOptions options)
      : options_(options), default_options_(options.use_eh_frame_hdr && options.use_debug_frame) {}

  // Never null; keeps `binary` alive.
  std::shared_ptr<const LazyCfiTable> get(const std::shared_ptr<const ElfBinary>& binary);
  // How many tables were opened (each binary counts once).
  size_t compiled() const { return compiled_.load(std::memory_order_relaxed); }

 private:
  struct Entry {
    std::shared_ptr<const ElfBinary> binary;
    std::once_flag once;
    std::shared_ptr<const LazyCfiTable> table;
  };
  CfiCompileOptions options_;
  bool default_options_ = true;
  std::mutex mutex_;
  std::unordered_map<const ElfBinary*, std::shared_ptr<Entry>> entries_;
  std::atomic<size_t> compiled_{0};
};

}  // namespace swprof
