#pragma once
// Raw records of the off-CPU event as its ring delivers them (sample_type
// kOffCpuSampleType, sample_id_all): switch-out samples and SWITCH records,
// for the tests of what reads those rings.

#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/byte_reader.h"
#include "sampler/perf_event.h"
#include "sampler/perf_records.h"

namespace swprof::testing {

inline const PerfLayout kOffCpuLayout{kOffCpuSampleType, kX86_64RegsMask, true};

// Where a thread was stopped: what the thinner's signature looks at, and what it does not.
struct OffCpuWait {
  uint64_t user_ip = 0x401000;
  uint64_t kernel_ip = 0xffffffff81001000ull;
  uint8_t stack_fill = 1;  // the first 256 bytes of the copied stack
  uint8_t deep_fill = 1;   // the bytes after them
};

inline void set_record_size(std::vector<uint8_t>& raw) {
  const uint16_t size = static_cast<uint16_t>(raw.size());
  std::memcpy(raw.data() + 6, &size, 2);
}

// A switch-out sample of thread `tid` of process 100: 512 stack bytes.
inline std::vector<uint8_t> raw_offcpu_sample(uint32_t tid, uint64_t time, const OffCpuWait& wait = {}) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.put(perf_event_header{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, 0});
  w.put<uint64_t>(0xffffffff81000100ull);  // ip: in schedule()
  w.put<uint32_t>(100);
  w.put<uint32_t>(tid);
  w.put<uint64_t>(time);
  w.put<uint32_t>(0);  // cpu
  w.put<uint32_t>(0);
  w.put<uint64_t>(2);  // callchain
  w.put<uint64_t>(PERF_CONTEXT_KERNEL);
  w.put<uint64_t>(wait.kernel_ip);
  w.put<uint64_t>(PERF_SAMPLE_REGS_ABI_64);
  for (int i = 0; i < 20; ++i) w.put<uint64_t>(i == kRegIp ? wait.user_ip : i == kRegSp ? 0x7ffc0000 : i);
  const uint64_t stack = 512;
  w.put<uint64_t>(stack);
  for (uint64_t i = 0; i < stack; ++i) w.put<uint8_t>(i < 256 ? wait.stack_fill : wait.deep_fill);
  w.put<uint64_t>(stack);  // dyn_size
  set_record_size(out);
  return out;
}

// A PERF_RECORD_SWITCH of thread `tid` of process 100 on `cpu`.
inline std::vector<uint8_t> raw_switch(uint32_t tid, uint64_t time, bool out, uint32_t cpu = 0) {
  std::vector<uint8_t> raw;
  ByteWriter w(raw);
  w.put(perf_event_header{PERF_RECORD_SWITCH, static_cast<uint16_t>(out ? PERF_RECORD_MISC_SWITCH_OUT : 0), 0});
  w.put<uint32_t>(100);
  w.put<uint32_t>(tid);
  w.put<uint64_t>(time);
  w.put<uint32_t>(cpu);
  w.put<uint32_t>(0);
  set_record_size(raw);
  return raw;
}

}  // namespace swprof::testing
