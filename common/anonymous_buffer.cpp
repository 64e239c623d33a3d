#include "common/anonymous_buffer.h"

namespace swprof {

AnonymousBuffer AnonymousBuffer::allocate(size_t size) {
  AnonymousBuffer out;
  // Aligned to a huge page inside a mapping one huge page bigger. Not
  // populated here: whoever writes a part pays for its pages, on its own
  // thread.
  constexpr size_t kHugePage = size_t{2} << 20;
  if (size == 0 || size > SIZE_MAX - kHugePage) return out;
  const size_t map_size = size + kHugePage;
  void* p = mmap(nullptr, map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return out;
  out.mapping_ = std::unique_ptr<void, MappingDeleter>(p, MappingDeleter{map_size});
  const uintptr_t aligned = (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  out.data_ = reinterpret_cast<uint8_t*>(aligned);
  out.size_ = size;
  madvise(out.data_, out.size_, MADV_HUGEPAGE);  // only a hint
  return out;
}

}  // namespace swprof
