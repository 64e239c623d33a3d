#include "sampler/stack_delta.h"

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
  scratch_.assign(size, 0);
  std::copy(stored.begin(), stored.end(), scratch_.begin());
  xor_overlap(prev, sp, scratch_);
  prev.sp = sp;
  prev.bytes.swap(scratch_);
  return Bytes(prev.bytes.data(), prev.bytes.size());
}

}  // namespace swprof
