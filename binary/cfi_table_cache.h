#pragma once
// The compiled CFI tables of every binary, each compiled once.

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "binary/cfi_table.h"
#include "binary/elf_binary.h"

namespace swprof {

// Compiled tables shared by all unwinding threads: each binary is compiled
// once, by the first thread that needs it, while other threads keep going on
// other binaries. The cache keeps each binary alive, so a `const ElfBinary*`
// stays a unique key for the cache's lifetime.
class CfiTableCache {
 public:
  CfiTableCache() = default;
  explicit CfiTableCache(CfiCompileOptions options) : options_(options) {}

  // Never null.
  std::shared_ptr<const CfiTable> get(const std::shared_ptr<const ElfBinary>& binary);
  // How many tables were compiled (each binary counts once).
  size_t compiled() const { return compiled_.load(std::memory_order_relaxed); }

 private:
  struct Entry {
    std::shared_ptr<const ElfBinary> binary;
    std::once_flag once;
    std::shared_ptr<const CfiTable> table;
  };
  CfiCompileOptions options_;
  std::mutex mutex_;
  std::unordered_map<const ElfBinary*, std::shared_ptr<Entry>> entries_;
  std::atomic<size_t> compiled_{0};
};

}  // namespace swprof
