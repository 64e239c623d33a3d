#pragma once
// The off-CPU time of each written off-CPU sample, from a recording's switch
// records (--off-cpu / --wall). Rings are per CPU: a thread switched out on
// one CPU and in on another has its two records in different rings, read in
// drain order, so each thread's records are sorted by time before pairing.
//
// Per thread, in time order:
//
//   sample(t0)  out(t1)  ...  in(t2)        the sample's interval: t2 - t1
//                                           (t1 is a few µs after t0: the
//                                           sample is matched to the first
//                                           out at or after it, before the
//                                           next in)
//   repeat(t3, ref=t0)  out(t4) in(t5)      charged to the sample at t0
//   out(t6) in(t7), no sample               charged to the thread's latest
//                                           sample of the same kind (a wait
//                                           or a preemption) when every > 1
//                                           (unsampled)
//   in(t8) with no out before it            skipped (first record after
//                                           attach, lost records)
//   out(t9) out(t10)                        lost in: the first ends at t10
//   out(t11) and no in                      ends at the recording's end: open
//                                           (when sampling stopped, from the
//                                           end record; in a recording cut
//                                           short, its last record)

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "recording/record_source.h"
#include "recording/records.h"

namespace swprof {

// What a written off-CPU sample stands for.
struct OffCpuWeight {
  uint64_t weight_ns = 0;     // its own interval + the intervals charged to it
  uint64_t preempted_ns = 0;  // of weight_ns, intervals whose switch-out was involuntary
  bool preempted = false;     // its own switch-out was involuntary (the thread was runnable)
  bool open = false;          // its own interval had no switch-in: it ends at the recording's end
  bool matched = false;       // a switch-out was found for it
};

class OffCpuIntervals {
 public:
  // `every`: the recording's off_cpu_settings.every (unsampled intervals are
  // charged to the thread's latest sample only when it is above 1).
  explicit OffCpuIntervals(uint32_t every = 1) : every_(every) {}

  void add(const SwitchRecord& r);
  void add(const OffCpuRepeatRecord& r);
  void add_sample(uint32_t tid, uint64_t time);
  // Pairs every thread's records; intervals still open end at `end_time`.
  void finish(uint64_t end_time);

  // The weight of the off-CPU sample of `tid` at `time` (after finish()),
  // or nullopt for a sample it never saw.
  const OffCpuWeight* weight(uint32_t tid, uint64_t time) const;
  uint64_t unattributed_ns() const { return unattributed_ns_; }  // intervals with no sample to charge

  // A recording's switch records, off-CPU samples and repeat records,
  // paired. Throws Error for a file that is no recording.
  static OffCpuIntervals read(const std::string& recording);
  // The same, from `source` before its first next()
  // (RecordSource::read_off_cpu_records).
  static OffCpuIntervals read(RecordSource& source);

 private:
  enum class Kind : uint8_t { kIn, kSample, kRepeat, kOut };  // the order at equal times
  struct Event {
    uint64_t time;
    Kind kind;
    bool preempted;
    uint64_t ref;  // kRepeat: the written sample's time
  };
  struct Key {
    uint32_t tid;
    uint64_t time;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return std::hash<uint64_t>()(k.time * 0x9e3779b97f4a7c15ull ^ k.tid); }
  };

  OffCpuWeight* find(uint32_t tid, uint64_t time);
  void pair_thread(uint32_t tid, std::vector<Event>& events, uint64_t end_time);

  uint32_t every_;
  std::unordered_map<uint32_t, std::vector<Event>> events_;  // by tid, in arrival order until finish()
  std::unordered_map<Key, OffCpuWeight, KeyHash> weights_;   // by written sample (node addresses are stable)
  uint64_t unattributed_ns_ = 0;
};

}  // namespace swprof
