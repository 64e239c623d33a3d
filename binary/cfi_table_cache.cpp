#include "binary/cfi_table_cache.h"

namespace swprof {

std::shared_ptr<const CfiTable> CfiTableCache::get(const std::shared_ptr<const ElfBinary>& binary) {
  if (!binary) return CfiTable::empty_table();
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard lock(mutex_);
    auto& slot = entries_[binary.get()];
    if (!slot) {
      slot = std::make_shared<Entry>();
      slot->binary = binary;
    }
    entry = slot;
  }
  // Compile outside the map lock: other binaries are served meanwhile, and
  // threads wanting this binary wait for the one compiling it.
  std::call_once(entry->once, [&] {
    entry->table = CfiTable::compile(*entry->binary, options_);
    compiled_.fetch_add(1, std::memory_order_relaxed);
  });
  return entry->table;
}

}  // namespace swprof
