#pragma once
// A large buffer in anonymous memory, filled once and then read: aligned to
// a huge page, so that where the kernel gives transparent huge pages (THP
// in "madvise" mode, as Debian sets it) filling N MiB costs a few page
// faults instead of 256 per MiB. A fresh process pays about 1 µs per 4 KiB
// page fault here; a report fills several MiB (debuginfo images, kallsyms).

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace swprof {

// Unmaps an mmap'd region of `size` bytes.
struct MappingDeleter {
  size_t size;
  void operator()(void* p) const { ::munmap(p, size); }
};

class AnonymousBuffer {
 public:
  AnonymousBuffer() = default;
  // `size` zeroed bytes; empty when the memory cannot be had.
  static AnonymousBuffer allocate(size_t size);

  bool empty() const { return !mapping_; }
  // Keeps the first `n` bytes (n <= size()): the mapping's pages beyond the
  // huge page that holds the last of them are given back.
  void keep(size_t n);
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::unique_ptr<void, MappingDeleter> mapping_;  // data_ lies inside it
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace swprof
