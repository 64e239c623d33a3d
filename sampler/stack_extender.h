#pragma once
// Reads the rest of a truncated stack copy from the live thread, right after
// the sample, so that deep stacks unwind to their entry (SampleView::stack_beyond).
//
// The kernel copies at most --stack-size bytes from the sampled sp, and
// stops earlier at a page that is not present (it copies without faulting
// pages in: a page of a large frame never written, or one reclaimed). When a
// copy is cut at either, the recorder reads with process_vm_readv
// (remote_memory.h) from a little before the copy's end up to --stack-beyond
// bytes past it (the read stops earlier at the first unreadable page: the
// top of the stack mapping):
//
//   sp            copy_end - overlap  copy_end                  copy_end + beyond
//   |<------ kernel's copy ------------>|
//                 |<-- re-read ------------------------------------->|   (1) one read
//                 |<-- again --------->|                                 (2) after (1)
//
// The thread has run on meanwhile, so the bytes are kept only when both
// reads of the overlap equal the copy's last bytes. What that proves: the
// outer frames of a deep stack are those of callers that have not returned
// yet; while they have not, the thread's sp stays below copy_end and the
// bytes above it are exactly the sample's. Had the thread returned past
// copy_end - overlap, going back down would write the overlap again (return
// addresses, saved registers, spilled locals of other calls); both reads of
// it equal the copy only if those writes left the same bytes. The overlap is
// read at the copy's outer end, which a running thread seldom reaches again,
// and not near sp, which changes with every call.
//
// When the live read does not verify (the thread has moved on, or exited
// before the recorder got to the sample: the rings are drained every few
// ms), nothing else stands in: an earlier sample's bytes at the same
// addresses were tried once, and under load (samples handled after their
// process had exited) gave walks whose outermost frames were not the
// thread's.
// Nothing verifying, nothing is kept: the walk ends where the copy ended,
// as without this reader.

#include <sys/types.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/byte_reader.h"
#include "recording/records.h"

namespace swprof {

// Bytes of the copy's end read again and compared.
inline constexpr size_t kStackOverlapBytes = 1024;

// The bytes past the copy that may be kept: `read` is what was read from
// copy.size() - overlap on (the overlap, then what follows it), `again` the
// overlap read once more after it. Empty unless both overlaps equal the
// copy's last `overlap` bytes and `read` goes past them.
Bytes verified_beyond(Bytes copy, Bytes read, Bytes again, size_t overlap);

// Whether the kernel ended `s`'s copy short of --stack-size at a page
// boundary: at the top of the stack's mapping, or at a page it could not
// read without a fault, past which the stack goes on.
bool copy_ends_at_page(const SampleView& s);

struct StackExtenderCounts {
  uint64_t tried = 0;    // truncated samples (and copies ended at a page) whose rest was read
  uint64_t at_page = 0;  // ... of them, copies the kernel ended at a page, not at --stack-size
  uint64_t kept = 0;     // ... and verified: their samples carry the bytes
  uint64_t changed = 0;  // the overlap differed: the thread had moved on
  uint64_t unread = 0;   // nothing could be read past the copy (thread gone, end of mapping)
  uint64_t bytes = 0;    // bytes kept, in all
  uint64_t ns = 0;       // time spent reading and verifying, in all
};

class StackExtender {
 public:
  // Reads up to `max_beyond` bytes past each truncated copy (at most kMaxStackBeyond).
  explicit StackExtender(uint32_t max_beyond);

  // For an on-CPU sample with a stack, truncated or ended at a page that is
  // not its stack's top (copy_ends_at_page): reads past its copy and,
  // when verified, makes s.stack view the copy followed by the bytes read
  // (s.stack_beyond of them), in a buffer of this object valid until the
  // next call. Other samples are left as they are.
  void extend(SampleView& s);

  const StackExtenderCounts& counts() const { return counts_; }
  // The time (CLOCK_MONOTONIC) of the last sample whose stack was read on.
  uint64_t last_sample_ns() const { return last_sample_ns_; }

 private:
  uint32_t max_beyond_;
  std::vector<uint8_t> read_;
  std::vector<uint8_t> again_;
  std::vector<uint8_t> stack_;
  // Per thread, the end of a copy past which nothing could be read: its
  // stack's top, where later copies that end there are not read on.
  std::unordered_map<uint32_t, uint64_t> tops_;
  StackExtenderCounts counts_;
  uint64_t last_sample_ns_ = 0;
};

}  // namespace swprof
