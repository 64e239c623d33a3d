#pragma once
// Samples held back, in recording order, while the kernel's symbols are read
// on a thread of their own (perf.data: perf's copy of kallsyms, or
// /proc/kallsyms, whose formatting alone costs the kernel tens of ms), or
// while the symbols and DWARF of a binary they pass through are (a libc's
// debuginfo inflates for ten ms and more). Their user frames are named when
// they are held, but for those in a binary still being read (null
// user_symbols); the kernel frames wait.
//
// Bounded twice: by count, and by the memory the held samples keep (their
// frames, kernel addresses and names), so that deep stacks (hundreds of
// frames each) hold a few MB, not a hundred, before they are released.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "profile/off_cpu_intervals.h"
#include "symbolize/symbolizer.h"
#include "unwind/recording_unwinder.h"

namespace swprof {

struct HeldSample {
  UnwoundSample unwound;
  std::string comm;
  bool named_by_record = false;
  std::vector<const SymbolizedAddress*> user_symbols;
  uint64_t weight = 0;
  const OffCpuWeight* off_cpu = nullptr;

  // The memory it keeps: itself and what its vectors and name hold.
  size_t bytes() const;
};

class HeldSamples {
 public:
  static constexpr size_t kMaxSamples = 8192;
  static constexpr size_t kMaxBytes = size_t{8} << 20;

  explicit HeldSamples(size_t max_samples = kMaxSamples, size_t max_bytes = kMaxBytes)
      : max_samples_(max_samples), max_bytes_(max_bytes) {}

  bool empty() const { return held_.empty(); }
  size_t size() const { return held_.size(); }
  size_t bytes() const { return bytes_; }
  // No more may be held: the samples held must go first.
  bool full() const { return held_.size() >= max_samples_ || bytes_ >= max_bytes_; }

  void hold(HeldSample sample) {
    bytes_ += sample.bytes();
    held_.push_back(std::move(sample));
  }

  // Hands each held sample to `deliver`, oldest first, then forgets them all.
  template <typename Deliver>
  void release(Deliver&& deliver) {
    for (HeldSample& h : held_) deliver(h);
    held_.clear();
    bytes_ = 0;
  }

 private:
  size_t max_samples_;
  size_t max_bytes_;
  size_t bytes_ = 0;
  std::vector<HeldSample> held_;
};

}  // namespace swprof
