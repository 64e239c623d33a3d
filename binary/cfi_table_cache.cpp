#include "binary/cfi_table_cache.h"

namespace swprof {

std::shared_ptr<const LazyCfiTable> CfiTableCache::get(const std::shared_ptr<const ElfBinary>& binary) {
  if (!binary) return LazyCfiTable::empty_table();
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
  // Open outside the map lock: other binaries are served meanwhile, and
  // threads wanting this binary wait for the one opening it.
  std::call_once(entry->once, [&] {
    if (default_options_) {
      // The binary's own table, the pointer keeping the binary alive.
      entry->table = std::shared_ptr<const LazyCfiTable>(entry->binary, &entry->binary->cfi_table());
    } else {
      entry->table = LazyCfiTable::open(*entry->binary, options_);
    }
    compiled_.fetch_add(1, std::memory_order_relaxed);
  });
  return entry->table;
}

}  // namespace swprof
