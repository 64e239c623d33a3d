#include "profile/leaf_cache.h"

namespace swprof {

uint64_t stack_hash(std::span<const uint32_t> stack) {
  uint64_t h = stack.size();
  for (uint32_t id : stack) h = (h ^ id) * 0x9e3779b97f4a7c15ull + (h >> 29);
  return mix64(h);
}

uint32_t LeafCache::node_at(std::span<const uint32_t> stack_root_first) {
  const uint64_t h = hash_(stack_root_first);
  const uint32_t cached = by_hash_.find(h);
  if (cached != FlatIndex<uint64_t, Identity>::kAbsent && tree_.is_path(cached, stack_root_first)) return cached;
  const uint32_t node = tree_.node_at(stack_root_first);
  by_hash_.assign(h, node);
  return node;
}

}  // namespace swprof
