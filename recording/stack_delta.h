#pragma once
// Delta coding of copied user stacks against the previous sample of the same
// thread. Consecutive samples of a thread share most of their stack: the
// caller frames near the top do not change while the leaf runs. Each stack
// is stored as its bytes XOR the previous stack's bytes at the same
// addresses, with the trailing (high-address) run of zeros cut off:
//
//   prev:     [psp ................................ psp+pn)
//   new:            [sp ..................................... sp+n)
//   stored:          new[i] ^ prev[at same address], or new[i] where prev has no byte
//   kept:            stored[0 .. n - trailing zero run)
//
// zstd then squeezes the rest. Encoder and decoder keep identical per-thread
// state; both reset it at every chunk so chunks decode independently.

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "common/byte_reader.h"
#include "common/uninitialized_bytes.h"

namespace swprof {

class StackDeltaCoder {
 public:
  // Encodes `stack` (valid bytes from `sp`) for thread `tid`; returns the bytes
  // to store (a view into an internal buffer, valid until the next call). The
  // stored size may be smaller than the stack: the rest is zero.
  Bytes encode(uint32_t tid, uint64_t sp, Bytes stack);

  // Rebuilds the stack from `stored` bytes and its full size; returns a view
  // valid until the next decode() for the same thread (or for as long as
  // last_buffer() is held). nullopt when the sizes
  // are impossible, or when keeping the stack would make the stacks held for
  // all threads exceed kMaxHeldBytes (only a damaged chunk gets there: the
  // bytes held are not bounded by the bytes stored, the rest being zeros).
  std::optional<Bytes> decode(uint32_t tid, uint64_t sp, uint32_t size, Bytes stored);

  // The buffer the last successful decode() wrote. While a caller holds it,
  // its bytes stay as they are: the coder writes later stacks elsewhere, and
  // takes the buffer back once the caller lets go. So a decoded stack can
  // be used after the next decode() without a copy.
  std::shared_ptr<const void> last_buffer() const { return last_; }

  void reset();

  // Budget of the previous stacks kept between samples of one chunk: 1024
  // threads with the largest stack a sample holds (the kernel's copy and
  // the bytes read past it, recording_format.h).
  static constexpr size_t kMaxHeldBytes = size_t{256} << 20;

 private:
  // Written whole by each decode(): never zeroed first.
  using Buffer = std::shared_ptr<UninitializedBytes>;
  struct ThreadStack {
    uint64_t sp = 0;
    Buffer bytes;  // null until the thread's first stack
    size_t size() const { return bytes ? bytes->size() : 0; }
  };
  // XORs `buf` (which starts at address sp) with prev's bytes where they overlap.
  static void xor_overlap(const ThreadStack& prev, uint64_t sp, UninitializedBytes& buf);
  // Makes scratch_ a buffer no caller holds: one given back, else a new one.
  UninitializedBytes& free_scratch();
  // Keeps a thread's previous buffer for reuse.
  void retire(Buffer old);
  void write_stack(const ThreadStack& prev, uint64_t sp, uint32_t size, Bytes stored, uint8_t* out) const;

  // Buffers retired while a caller still held them, oldest first: callers
  // let go of stacks in about the order they were decoded.
  static constexpr size_t kMaxLent = 1u << 16;

  std::unordered_map<uint32_t, ThreadStack> threads_;
  Buffer scratch_;
  Buffer last_;  // the last decode()'s buffer, for last_buffer()
  std::deque<Buffer> lent_;
  size_t held_bytes_ = 0;  // capacity of every ThreadStack::bytes (decode only)
};

}  // namespace swprof
