#pragma once
// The perf events of one sampling session: one event per (task, CPU), each
// CPU's events writing into the ring of its first event, with the fallbacks
// the kernel may ask for (no build-ids before 5.12, user mode only when kernel
// sampling is not permitted, smaller rings under a low mlock limit).

#include <poll.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/unique_fd.h"
#include "sampler/event_spec.h"
#include "sampler/perf_event.h"
#include "sampler/perf_records.h"
#include "sampler/ring_buffer.h"
#include "sampler/session_summary.h"

namespace swprof {

// The CPUs of a sysfs CPU list such as "0-3,5,7-8"; parsing stops at the
// first malformed entry.
std::vector<int> parse_cpu_list(std::string_view text);

// Per-CPU ring size: room for 1/16 s of worst-case samples (a sample reserves
// the full --stack-size in the ring even when fewer bytes are valid).
uint64_t default_ring_bytes(const SamplingOptions& options);

// Per-CPU ring size of the off-CPU events: room for 1/16 s of 20,000
// switch-outs per second, each reserving the off-CPU stack size in the ring,
// between 1 MiB and 16 MiB.
uint64_t default_offcpu_ring_bytes(uint32_t offcpu_stack_size);

// Which events a set holds: the timer (or counter) samples, or the off-CPU
// samples and switch records (make_offcpu_attr), each set with its rings and
// its record layout.
enum class EventRole { kTimer, kOffCpu };

class EventSet {
 public:
  EventSet(const SamplingOptions& options, bool enable_on_exec, EventRole role = EventRole::kTimer);

  // Opens the event for task `pid` on every CPU. Returns 0 or an errno.
  int open_task(pid_t pid);
  void set_enabled(bool on);
  std::vector<pollfd> poll_fds() const;

  // Hands every record waiting in the rings to `fn`; returns how many were malformed.
  template <typename Fn>
  uint64_t drain(Fn&& fn) {
    uint64_t malformed = 0;
    for (auto& ring : rings_)
      if (ring.valid()) malformed += reader_.drain(ring.view(), fn).malformed;
    return malformed;
  }

  // What the summary says about how sampling was set up, and how long the
  // threads ran.
  void describe(SessionSummary& s) const;
  // The message for an errno from open_task().
  std::string describe_setup_error(int err, pid_t pid) const;

  PerfLayout layout() const {
    if (role_ == EventRole::kOffCpu) return {kOffCpuSampleType, kX86_64RegsMask, true};
    return {kSampleType | (choice_.kernel ? PERF_SAMPLE_CALLCHAIN : 0), kX86_64RegsMask};
  }
  EventRole role() const { return role_; }
  bool kernel() const { return choice_.kernel; }
  const std::string& kernel_note() const { return kernel_note_; }
  uint64_t ring_bytes() const { return ring_bytes_; }
  const EventSpec& event() const { return options_.event; }
  bool mmap_failed() const { return mmap_failed_; }

 private:
  // The events' counts summed: for a time event, the nanoseconds the
  // sampled threads (and the children they inherited it to, once exited)
  // were on a CPU while sampled.
  uint64_t total_count() const;
  void resolve_kernel_choice();
  uint32_t stack_size() const;
  uint32_t wakeup_watermark() const;
  perf_event_attr attr() const;
  void set_kernel_denied_note();
  UniqueFd open_with_fallbacks(pid_t pid, int cpu, int* err);
  int attach_to_ring(size_t cpu_index, int fd);

  SamplingOptions options_;
  EventRole role_;
  std::vector<int> cpus_;
  AttrChoice choice_;
  std::string kernel_note_;
  uint64_t ring_bytes_ = 0;
  bool mmap_failed_ = false;
  std::vector<std::vector<UniqueFd>> fds_by_cpu_;
  std::vector<MappedRingBuffer> rings_;
  RingBufferReader reader_;
};

}  // namespace swprof
