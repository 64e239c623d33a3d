#pragma once
// Reads the rest of a cut stack copy from the live thread, right after the
// sample, so that deep stacks unwind to their entry (SampleView::stack_beyond).
//
// The kernel copies at most --stack-size bytes from the sampled sp, and
// stops earlier at a page that is not present (it copies without faulting
// pages in: a page of a large frame never written, or one reclaimed). When a
// copy is cut at either, the recorder reads with process_vm_readv
// (remote_memory.h) from the copy's start (the window: the copy less the
// bytes at its start past a multiple of 64) up to --stack-beyond bytes past it (the read stops earlier at the first
// unreadable page: the top of the stack mapping), then the window again:
//
//   sp         copy_end - window   copy_end                  copy_end + beyond
//   |<------ kernel's copy ------------>|
//              |<-- read ---------------------------------------->|   (1) one read
//              |<-- again ------------>|                               (2) after (1)
//
// The thread has run on meanwhile. Which of the bytes past the copy are
// still the sample's cannot be told here: that depends on where its frames
// are, which only the unwinder knows. So the bytes are kept with a map of
// the window's words that either read found different from the copy
// (SampleView::beyond_changed), and the unwinder shows the frames walked
// from them only when the return addresses of the copy's outermost frames
// read the same (unwind/beyond_check.h says what that shows). Reads come
// within a millisecond or so of most samples: the rings wake the recorder at
// every sample while it reads past copies (EventSet::wakeup_watermark,
// RingDrainer::set_prompt).
//
// When nothing can be read past the copy (the thread exited before the
// recorder got to the sample, or the copy ended at the stack's top), nothing
// else stands in: an earlier sample's bytes at the same addresses were tried
// once, and under load (samples handled after their process had exited) gave
// walks whose outermost frames were not the thread's. The walk then ends
// where the copy ended, as without this reader.

#include <sys/types.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/byte_reader.h"
#include "recording/records.h"

namespace swprof {

// The map of SampleView::beyond_changed for a copy whose last bytes are
// `tail` (a multiple of 64 bytes): a word's bit is set when `read` or
// `again` (reads of the same addresses, either cut short) lacks it or holds
// something else. Written into `out`.
void mark_changed_words(Bytes tail, Bytes read, Bytes again, std::vector<uint8_t>& out);

// Whether the kernel ended `s`'s copy short of --stack-size at a page
// boundary: at the top of the stack's mapping, or at a page it could not
// read without a fault, past which the stack goes on.
bool copy_ends_at_page(const SampleView& s);

struct StackExtenderCounts {
  uint64_t tried = 0;    // truncated samples (and copies ended at a page) whose rest was read
  uint64_t at_page = 0;  // ... of them, copies the kernel ended at a page, not at --stack-size
  uint64_t kept = 0;     // ... whose samples carry bytes past the copy
  uint64_t changed = 0;  // ... of those, with some word of the window read differently
  uint64_t unread = 0;   // nothing could be read past the copy (thread gone, end of mapping)
  uint64_t bytes = 0;    // bytes kept, in all
  uint64_t ns = 0;       // time spent reading, in all
};

class StackExtender {
 public:
  // Reads up to `max_beyond` bytes past each cut copy (at most kMaxStackBeyond).
  explicit StackExtender(uint32_t max_beyond);

  // For an on-CPU sample with a stack, truncated or ended at a page that is
  // not its stack's top (copy_ends_at_page): reads past its copy and, when
  // something was read, makes s.stack view the copy followed by the bytes
  // read (s.stack_beyond of them) and s.beyond_changed the window's map, in
  // buffers of this object valid until the next call. Other samples are
  // left as they are.
  void extend(SampleView& s);

  const StackExtenderCounts& counts() const { return counts_; }
  // The time (CLOCK_MONOTONIC) of the last sample whose stack was read on.
  uint64_t last_sample_ns() const { return last_sample_ns_; }

 private:
  uint32_t max_beyond_;
  std::vector<uint8_t> read_;
  std::vector<uint8_t> again_;
  std::vector<uint8_t> stack_;
  std::vector<uint8_t> changed_;
  // Per thread, the end of a copy past which nothing could be read: its
  // stack's top, where later copies that end there are not read on.
  std::unordered_map<uint32_t, uint64_t> tops_;
  StackExtenderCounts counts_;
  uint64_t last_sample_ns_ = 0;
};

}  // namespace swprof
