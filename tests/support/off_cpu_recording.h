#pragma once
// A recording made as `swprof record --wall` would make it, written in a
// test's folder: process 100 with threads 100 ("main") and 101 ("worker"),
// on-CPU samples of 1 ms each, off-CPU samples with their switch records
// (ins drained before outs, as from another CPU's ring), a repeat record and
// a preempted switch-out. Times in ms from kOffCpuRecordingStart:
//
//   worker 101  on-CPU samples at 1, 2, 3                     3 ms on-CPU
//               off-CPU A at 10 (sleep), out 10.005, in 14.005     4 ms
//               off-CPU B at 20 (pipe),  out 20.010, in 23.010     3 ms
//               repeat of A at 30,       out 30,     in 31         1 ms -> A
//               off-CPU C at 40, out 40 preempted, in 42           2 ms [preempted]
//   main 100    off-CPU D at 50 (sleep), out 50, never in         10 ms, open
//               on-CPU sample at 60 (the recording's last record) 1 ms on-CPU
//
// On-CPU 4 ms, off-CPU 20 ms (A 5, B 3, C 2, D 10), wall 24 ms. No mapping:
// user frames are unknown addresses; kernel chains (leaf first) are
// schedule <- do_nanosleep (A, D), schedule <- pipe_read (B), schedule (C),
// at the addresses `kernel` gives.

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "recording/recording_writer.h"
#include "support/record_fixtures.h"
#include "support/recording_v3.h"

namespace swprof::testing {

inline constexpr uint64_t kOffCpuRecordingStart = 7'000'000'000;

// Addresses of the kernel functions the chains name.
struct OffCpuKernelAddresses {
  uint64_t schedule = 0xffffffff81000010;
  uint64_t do_nanosleep = 0xffffffff81001020;
  uint64_t pipe_read = 0xffffffff81002030;
};

// kallsyms text that names the default OffCpuKernelAddresses.
inline std::string off_cpu_kallsyms_text() {
  return "ffffffff81000000 T schedule\nffffffff81001000 T do_nanosleep\nffffffff81002000 T pipe_read\n";
}

// This machine's addresses of the same functions (/proc/kallsyms, root:
// the real addresses), 0x10 into each, so that command-line runs, which read
// /proc/kallsyms, name them. The pipe read is `anon_pipe_read` on newer
// kernels. A function not found keeps its default (unknown) address.
inline OffCpuKernelAddresses host_kernel_addresses() {
  OffCpuKernelAddresses k;
  std::ifstream in("/proc/kallsyms");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string address, type, name;
    fields >> address >> type >> name;
    if (address.empty() || address.find_first_not_of('0') == std::string::npos) continue;
    const uint64_t at = std::stoull(address, nullptr, 16) + 0x10;
    if (name == "schedule") k.schedule = at;
    else if (name == "do_nanosleep") k.do_nanosleep = at;
    else if (name == "pipe_read" || name == "anon_pipe_read") k.pipe_read = at;
  }
  return k;
}

inline uint64_t off_cpu_at_ms(double ms) { return kOffCpuRecordingStart + static_cast<uint64_t>(ms * 1e6); }

// Writer: RecordingWriter, or RecordingV3Writer for the layout of version 3.
template <typename Writer = RecordingWriter>
class OffCpuRecordingWriter {
 public:
  OffCpuRecordingWriter(const std::string& path, const RecordingHeader& header) : w_(path, header) {}

  void comm(uint32_t tid, const std::string& name) {
    CommRecord c;
    c.time = kOffCpuRecordingStart;
    c.pid = 100;
    c.tid = tid;
    c.comm = name;
    w_.write(c);
  }
  void on_cpu(uint32_t tid, double ms) {
    OwnedSample s = make_sample(tid, off_cpu_at_ms(ms), 0x7ff000, stack_);
    s.view.period = 1'000'000;
    w_.write(s.view);
  }
  void off_cpu(uint32_t tid, double ms, std::vector<uint64_t> kernel) {
    OwnedSample s = make_sample(tid, off_cpu_at_ms(ms), 0x7ff000, stack_, std::move(kernel));
    s.view.off_cpu = true;
    s.view.period = 0;
    w_.write(s.view);
  }
  void switch_record(uint32_t tid, double ms, bool out, bool preempted = false) {
    SwitchRecord r;
    r.time = off_cpu_at_ms(ms);
    r.pid = 100;
    r.tid = tid;
    r.cpu = out ? 0 : 1;
    r.out = out;
    r.preempted = preempted;
    w_.write(r);
  }
  void repeat(uint32_t tid, double ms, double ref_ms) {
    OffCpuRepeatRecord r;
    r.time = off_cpu_at_ms(ms);
    r.pid = 100;
    r.tid = tid;
    r.ref_time = off_cpu_at_ms(ref_ms);
    w_.write(r);
  }
  // An image after the samples, as the recorder writes the kernel symbols when it stops.
  void trailing_image(const std::string& name, const std::string& text) {
    w_.flush();
    w_.write(ImageRecord{name, Bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size())});
  }
  void finish() { w_.finish(EndRecord{"{}"}); }

 private:
  Writer w_;
  const std::vector<uint8_t> stack_ = std::vector<uint8_t>(64, 0);
};

// The header of a --wall recording (default_weight wall), or, with
// `off_cpu` false, of a plain cpu-clock recording.
inline RecordingHeader off_cpu_header(bool off_cpu = true, const std::string& event = "cpu-clock") {
  RecordingHeader h;
  h.mode = "record";
  h.command = {"./waits"};
  h.event = event;
  h.frequency = 1000;
  h.start_monotonic_ns = kOffCpuRecordingStart;
  h.kernel_samples = true;
  h.off_cpu = off_cpu;
  h.off_cpu_settings.stack_size = 8192;
  h.default_weight = off_cpu ? "wall" : "cpu";
  return h;
}

// With `kallsyms` (text), the recording keeps the kernel symbols (off_cpu_kallsyms_text()).
template <typename Writer = RecordingWriter>
void write_off_cpu_recording(const std::string& path, const OffCpuKernelAddresses& k = {},
                             const RecordingHeader& header = off_cpu_header(), const std::string& kallsyms = "") {
  OffCpuRecordingWriter<Writer> w(path, header);
  w.comm(100, "main");
  w.comm(101, "worker");
  for (double ms : {1.0, 2.0, 3.0}) w.on_cpu(101, ms);
  w.switch_record(101, 14.005, false);  // from CPU1's ring, drained first
  w.switch_record(101, 23.010, false);
  w.off_cpu(101, 10, {k.schedule, k.do_nanosleep});
  w.switch_record(101, 10.005, true);
  w.off_cpu(101, 20, {k.schedule, k.pipe_read});
  w.switch_record(101, 20.010, true);
  w.repeat(101, 30, 10);
  w.switch_record(101, 30, true);
  w.switch_record(101, 31, false);
  w.off_cpu(101, 40, {k.schedule});
  w.switch_record(101, 40, true, /*preempted=*/true);
  w.switch_record(101, 42, false);
  w.off_cpu(100, 50, {k.schedule, k.do_nanosleep});
  w.switch_record(100, 50, true);
  w.on_cpu(100, 60);
  if (!kallsyms.empty()) w.trailing_image(kKallsymsImageName, kallsyms);
  w.finish();
}

}  // namespace swprof::testing
