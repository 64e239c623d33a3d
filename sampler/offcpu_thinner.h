#pragma once
// --off-cpu-min: bounds what short waits cost in the recording.
//
// Every switch-out brings a sample with an 8 KiB stack; on a thread that
// blocks 50,000 times a second nearly all of them repeat the same few stacks.
// The thinner holds each off-CPU sample until the length of its wait is known
// (the thread's next switch-in, from any CPU's ring, or `min` elapsed without
// one) and then:
//   wait >= min                                  -> the sample is written
//   wait <  min, signature equals one of the     -> OffCpuRepeatRecord naming
//     thread's last kRecent written samples         that sample's time
//   otherwise                                    -> the sample is written
// The signature hashes what locates the wait: user ip and sp, the kernel
// chain and the first kSignatureStackBytes of the copied stack. Switch records
// are never held (they carry the durations). Memory: one held sample per
// thread, its buffer reused (no allocation per sample once a thread has had one).

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/byte_reader.h"
#include "recording/records.h"

namespace swprof {

class OffCpuThinner {
 public:
  static constexpr size_t kRecent = 8;
  static constexpr size_t kSignatureStackBytes = 256;

  // Where decided samples go.
  class Output {
   public:
    virtual ~Output() = default;
    // The raw off-CPU sample record, as the ring delivered it.
    virtual void off_cpu_sample(Bytes raw) = 0;
    virtual void off_cpu_repeat(const OffCpuRepeatRecord& repeat) = 0;
  };

  OffCpuThinner(uint64_t min_ns, Output& output) : min_ns_(min_ns), output_(output) {}

  // An off-CPU sample; `view` was parsed from `raw`.
  void add_sample(Bytes raw, const SampleView& view);
  // Every switch record of the off-CPU rings: a switch-in ends a held wait.
  void add_switch(const SwitchRecord& sw);
  // Decides the held samples whose wait has lasted `min` by `now_ns`
  // (CLOCK_MONOTONIC read before the rings were drained, so a switch-in
  // before it would have been seen).
  void release_waits_longer_than_min(uint64_t now_ns);
  // Writes every held sample (their threads are still off the CPU).
  void flush();

  static uint64_t signature(const SampleView& view);

 private:
  struct Recent {
    uint64_t signature = 0;
    uint64_t time = 0;
  };
  struct Thread {
    std::vector<uint8_t> held;  // the raw record of the held sample
    bool holding = false;
    uint32_t pid = 0;
    uint64_t held_time = 0;
    uint64_t held_signature = 0;
    uint64_t last_switch_in = 0;
    std::array<Recent, kRecent> recent{};
    size_t recent_count = 0;
    size_t recent_next = 0;
  };

  void decide(uint32_t tid, Thread& t, Bytes raw, bool short_wait);
  const Recent* find_recent(const Thread& t, uint64_t signature) const;
  static void remember(Thread& t, uint64_t signature, uint64_t time);

  uint64_t min_ns_;
  Output& output_;
  std::unordered_map<uint32_t, Thread> threads_;
};

}  // namespace swprof
