#include "recording/stack_delta.h"

#include <algorithm>
#include <cstring>

namespace swprof {

void StackDeltaCoder::xor_overlap(const ThreadStack& prev, uint64_t sp, std::vector<uint8_t>& buf) {
  if (prev.bytes.empty() || buf.empty()) return;
  const uint64_t lo = std::max(sp, prev.sp);
  const uint64_t hi = std::min(sp + buf.size(), prev.sp + prev.bytes.size());
  if (lo >= hi) return;
  uint8_t* dst = buf.data() + (lo - sp);
  const uint8_t* src = prev.bytes.data() + (lo - prev.sp);
  const size_t n = hi - lo;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {  // a word at a time; memcpy keeps it alignment-safe
    uint64_t a, b;
    std::memcpy(&a, dst + i, 8);
    std::memcpy(&b, src + i, 8);
    a ^= b;
    std::memcpy(dst + i, &a, 8);
  }
  for (; i < n; ++i) dst[i] ^= src[i];
}

Bytes StackDeltaCoder::encode(uint32_t tid, uint64_t sp, Bytes stack) {
  ThreadStack& prev = threads_[tid];
  scratch_.assign(stack.begin(), stack.end());
  xor_overlap(prev, sp, scratch_);
  size_t kept = scratch_.size();
  while (kept > 0 && scratch_[kept - 1] == 0) --kept;
  prev.sp = sp;
  prev.bytes.assign(stack.begin(), stack.end());
  return Bytes(scratch_.data(), kept);
}

std::optional<Bytes> StackDeltaCoder::decode(uint32_t tid, uint64_t sp, uint32_t size, Bytes stored) {
  if (stored.size() > size) return std::nullopt;
  ThreadStack& prev = threads_[tid];
  scratch_.reserve(size);
  const size_t held = held_bytes_ - prev.bytes.capacity() + scratch_.capacity();
  if (held > kMaxHeldBytes) return std::nullopt;
  // One pass over the output: the stored bytes (zero past their end), XOR
  // the previous stack where it covers the same addresses. Offsets are from
  // sp; the previous stack covers [a, b) of the output.
  scratch_.resize(size);
  uint8_t* out = scratch_.data();
  const size_t k = stored.size();
  size_t a = 0, b = 0;
  if (!prev.bytes.empty()) {
    const uint64_t lo = std::max(sp, prev.sp);
    const uint64_t hi = std::min(sp + size, prev.sp + prev.bytes.size());
    if (lo < hi) {
      a = lo - sp;
      b = hi - sp;
    }
  }
  auto plain = [&](size_t from, size_t to) {  // no previous bytes: stored, then zeros
    const size_t copied = std::min(std::max(from, k), to);
    if (copied > from) std::memcpy(out + from, stored.data() + from, copied - from);
    if (to > copied) std::memset(out + copied, 0, to - copied);
  };
  plain(0, a);
  if (a < b) {
    const uint8_t* base = prev.bytes.data() + (sp + a - prev.sp);  // the previous byte at offset a
    const size_t mixed = std::min(std::max(a, k), b);              // [a, mixed): stored ^ previous
    size_t i = a;
    for (; i + 8 <= mixed; i += 8) {  // a word at a time; memcpy keeps it alignment-safe
      uint64_t x, y;
      std::memcpy(&x, stored.data() + i, 8);
      std::memcpy(&y, base + (i - a), 8);
      x ^= y;
      std::memcpy(out + i, &x, 8);
    }
    for (; i < mixed; ++i) out[i] = stored[i] ^ base[i - a];
    if (b > mixed) std::memcpy(out + mixed, base + (mixed - a), b - mixed);  // stored is zero there
  }
  plain(b, size);
  prev.sp = sp;
  prev.bytes.swap(scratch_);
  held_bytes_ = held;
  return Bytes(prev.bytes.data(), prev.bytes.size());
}

}  // namespace swprof
