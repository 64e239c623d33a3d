#include "sampler/ring_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace swprof {

void RingBufferReader::copy_out(const RingView& ring, uint64_t from, uint8_t* dst, uint64_t n) const {
  const uint64_t mask = ring.size - 1;
  const uint64_t start = from & mask;
  const uint64_t first = std::min(n, ring.size - start);
  std::memcpy(dst, ring.data + start, first);
  if (first < n) std::memcpy(dst + first, ring.data, n - first);
}

Bytes RingBufferReader::record_at(const RingView& ring, uint64_t tail, uint64_t available) {
  if (available < sizeof(perf_event_header)) return {};
  perf_event_header header;
  copy_out(ring, tail, reinterpret_cast<uint8_t*>(&header), sizeof header);
  if (header.size < sizeof header || header.size > available) return {};
  const uint64_t start = tail & (ring.size - 1);
  if (start + header.size <= ring.size) return Bytes(ring.data + start, header.size);
  scratch_.resize(header.size);
  copy_out(ring, tail, scratch_.data(), header.size);
  return Bytes(scratch_.data(), header.size);
}

MappedRingBuffer MappedRingBuffer::map(int fd, uint64_t data_bytes, int* err) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  MappedRingBuffer ring;
  const uint64_t total = page + data_bytes;
  void* base = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    *err = errno;
    return ring;
  }
  *err = 0;
  ring.base_ = base;
  ring.map_bytes_ = total;
  ring.data_bytes_ = data_bytes;
  return ring;
}

MappedRingBuffer::MappedRingBuffer(MappedRingBuffer&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      map_bytes_(std::exchange(other.map_bytes_, 0)),
      data_bytes_(std::exchange(other.data_bytes_, 0)) {}

MappedRingBuffer& MappedRingBuffer::operator=(MappedRingBuffer&& other) noexcept {
  if (this != &other) {
    unmap();
    base_ = std::exchange(other.base_, nullptr);
    map_bytes_ = std::exchange(other.map_bytes_, 0);
    data_bytes_ = std::exchange(other.data_bytes_, 0);
  }
  return *this;
}

MappedRingBuffer::~MappedRingBuffer() { unmap(); }

void MappedRingBuffer::unmap() {
  if (base_) munmap(base_, map_bytes_);
  base_ = nullptr;
}

RingView MappedRingBuffer::view() const {
  auto* meta = static_cast<perf_event_mmap_page*>(base_);
  // data_offset/data_size exist since Linux 4.1; before that data follows the first page.
  uint64_t offset = meta->data_offset ? meta->data_offset : static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return RingView{meta, static_cast<uint8_t*>(base_) + offset, data_bytes_};
}

}  // namespace swprof
