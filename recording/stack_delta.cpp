#include "recording/stack_delta.h"

#include <algorithm>
#include <cstring>

namespace swprof {

void StackDeltaCoder::xor_overlap(const ThreadStack& prev, uint64_t sp, UninitializedBytes& buf) {
  if (prev.size() == 0 || buf.empty()) return;
  const uint64_t lo = std::max(sp, prev.sp);
  const uint64_t hi = std::min(sp + buf.size(), prev.sp + prev.size());
  if (lo >= hi) return;
  uint8_t* dst = buf.data() + (lo - sp);
  const uint8_t* src = prev.bytes->data() + (lo - prev.sp);
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
  UninitializedBytes& scratch = free_scratch();
  scratch.assign(stack.begin(), stack.end());
  xor_overlap(prev, sp, scratch);
  size_t kept = scratch.size();
  while (kept > 0 && scratch[kept - 1] == 0) --kept;
  prev.sp = sp;
  if (!prev.bytes) prev.bytes = std::make_shared<UninitializedBytes>();
  prev.bytes->assign(stack.begin(), stack.end());
  return Bytes(scratch.data(), kept);
}

UninitializedBytes& StackDeltaCoder::free_scratch() {
  if (!scratch_) {
    if (!lent_.empty() && lent_.front().use_count() == 1) {
      scratch_ = std::move(lent_.front());
      lent_.pop_front();
    } else {
      scratch_ = std::make_shared<UninitializedBytes>();
    }
  }
  return *scratch_;
}

void StackDeltaCoder::retire(Buffer old) {
  if (!old) return;
  if (old.use_count() == 1 && !scratch_) {
    scratch_ = std::move(old);
    return;
  }
  if (lent_.size() >= kMaxLent) lent_.pop_front();  // left to its holder
  lent_.push_back(std::move(old));
}

void StackDeltaCoder::reset() {
  last_.reset();
  for (auto& [tid, stack] : threads_) retire(std::move(stack.bytes));
  threads_.clear();
  held_bytes_ = 0;
}

std::optional<Bytes> StackDeltaCoder::decode(uint32_t tid, uint64_t sp, uint32_t size, Bytes stored) {
  last_.reset();
  if (stored.size() > size) return std::nullopt;
  ThreadStack& prev = threads_[tid];
  UninitializedBytes& scratch = free_scratch();
  if (scratch.capacity() < size) {
    scratch.clear();  // its bytes are written over: growing need not copy them
    scratch.reserve(size);
  }
  const size_t held = held_bytes_ - (prev.bytes ? prev.bytes->capacity() : 0) + scratch.capacity();
  if (held > kMaxHeldBytes) return std::nullopt;
  scratch.resize(size);
  write_stack(prev, sp, size, stored, scratch.data());
  prev.sp = sp;
  Buffer old = std::move(prev.bytes);
  prev.bytes = std::move(scratch_);
  last_ = prev.bytes;
  retire(std::move(old));
  held_bytes_ = held;
  return Bytes(prev.bytes->data(), prev.bytes->size());
}

// One pass over the output: the stored bytes (zero past their end), XOR the
// previous stack where it covers the same addresses. Offsets are from sp;
// the previous stack covers [a, b) of the output.
void StackDeltaCoder::write_stack(const ThreadStack& prev, uint64_t sp, uint32_t size, Bytes stored,
                                  uint8_t* out) const {
  const size_t k = stored.size();
  size_t a = 0, b = 0;
  if (prev.size() != 0) {
    const uint64_t lo = std::max(sp, prev.sp);
    const uint64_t hi = std::min(sp + size, prev.sp + prev.size());
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
    const uint8_t* base = prev.bytes->data() + (sp + a - prev.sp);  // the previous byte at offset a
    const size_t mixed = std::min(std::max(a, k), b);               // [a, mixed): stored ^ previous
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
}

}  // namespace swprof
