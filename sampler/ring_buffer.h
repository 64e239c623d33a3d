#pragma once
// The perf ring buffer: one metadata page followed by 2^n data pages.
//
//   [ perf_event_mmap_page | data[0] ... data[size-1] ]
//                             ^ tail (ours)   ^ head (kernel's)
//
// The kernel writes records at data_head and publishes it; we read from
// data_tail up to data_head and then publish the new data_tail. head is
// loaded with acquire ordering (records before head are fully written);
// tail is stored with release ordering (the kernel may overwrite what we
// read only after we are done with it). Records may wrap around the end.

#include <linux/perf_event.h>

#include <cstdint>
#include <vector>

#include "common/byte_reader.h"

namespace swprof {

struct RingView {
  perf_event_mmap_page* meta = nullptr;
  uint8_t* data = nullptr;
  uint64_t size = 0;  // a power of two
};

struct DrainStats {
  uint64_t records = 0;
  uint64_t bytes = 0;
  uint64_t malformed = 0;  // headers with an impossible size (the rest of the batch is skipped)
};

class RingBufferReader {
 public:
  // Hands every complete record in [tail, head) to `fn(Bytes record)` as one
  // contiguous span (copied to a scratch buffer when it wraps), then releases
  // the space to the kernel.
  template <typename Fn>
  DrainStats drain(const RingView& ring, Fn&& fn) {
    DrainStats stats;
    const uint64_t head = __atomic_load_n(&ring.meta->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = ring.meta->data_tail;
    while (tail < head) {
      Bytes record = record_at(ring, tail, head - tail);
      if (record.empty()) {
        ++stats.malformed;
        tail = head;
        break;
      }
      fn(record);
      tail += record.size();
      ++stats.records;
      stats.bytes += record.size();
    }
    __atomic_store_n(&ring.meta->data_tail, tail, __ATOMIC_RELEASE);
    return stats;
  }

 private:
  // The record starting at `tail`, or an empty span when its header is
  // malformed (size < header or larger than what the kernel published).
  Bytes record_at(const RingView& ring, uint64_t tail, uint64_t available);
  void copy_out(const RingView& ring, uint64_t from, uint8_t* dst, uint64_t n) const;

  std::vector<uint8_t> scratch_;
};

// RAII owner of the mmap'd ring of one perf event fd.
class MappedRingBuffer {
 public:
  // Maps 1 + data_bytes/page pages; data_bytes must be a power of two >= 2 pages.
  // Returns an empty buffer and sets *err on failure.
  static MappedRingBuffer map(int fd, uint64_t data_bytes, int* err);

  MappedRingBuffer() = default;
  MappedRingBuffer(MappedRingBuffer&& other) noexcept;
  MappedRingBuffer& operator=(MappedRingBuffer&& other) noexcept;
  MappedRingBuffer(const MappedRingBuffer&) = delete;
  MappedRingBuffer& operator=(const MappedRingBuffer&) = delete;
  ~MappedRingBuffer();

  bool valid() const { return base_ != nullptr; }
  RingView view() const;
  uint64_t data_size() const { return data_bytes_; }

 private:
  void unmap();
  void* base_ = nullptr;
  uint64_t map_bytes_ = 0;
  uint64_t data_bytes_ = 0;
};

}  // namespace swprof
