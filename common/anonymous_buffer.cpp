#include "common/anonymous_buffer.h"

namespace swprof {

namespace {

constexpr size_t kHugePage = size_t{2} << 20;

}  // namespace

AnonymousBuffer AnonymousBuffer::allocate(size_t size) {
  AnonymousBuffer out;
  // Aligned to a huge page inside a mapping one huge page bigger. Not
  // populated here: whoever writes a part pays for its pages, on its own
  // thread. No swap is reserved: a buffer sized for the most allowed is
  // mostly never written.
  if (size == 0 || size > SIZE_MAX - kHugePage) return out;
  const size_t map_size = size + kHugePage;
  void* p = mmap(nullptr, map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return out;
  out.mapping_ = std::unique_ptr<void, MappingDeleter>(p, MappingDeleter{map_size});
  const uintptr_t aligned = (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  out.data_ = reinterpret_cast<uint8_t*>(aligned);
  out.size_ = size;
  madvise(out.data_, out.size_, MADV_HUGEPAGE);  // only a hint
  return out;
}

void AnonymousBuffer::keep(size_t n) {
  if (!mapping_ || n >= size_) return;
  const auto start = reinterpret_cast<uintptr_t>(mapping_.get());
  const uintptr_t end = start + mapping_.get_deleter().size;
  const uintptr_t kept_end = (reinterpret_cast<uintptr_t>(data_) + n + kHugePage - 1) & ~(kHugePage - 1);
  if (kept_end < end && ::munmap(reinterpret_cast<void*>(kept_end), end - kept_end) == 0)
    mapping_.get_deleter().size = kept_end - start;
  size_ = n;
}

}  // namespace swprof
