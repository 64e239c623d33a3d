#pragma once
// A small recording written in a test's folder: process 100 with threads
// whose names come from COMM records or from their parent, a lost-samples
// record and a kernel call chain, at known times:
//
//   t (s from start)  record
//   0.0               comm 100 "main"
//   0.1               fork 101 from 100          (101 inherits "main")
//   0.2               sample 100, kernel chain [kKernelLeaf, kKernelCaller]
//   0.3               sample 101
//   0.35              lost 5
//   0.4               comm 101 "worker"
//   1.5               sample 101
//   1.6               sample 102                 (never named)
//
// No mapping: user frames are unknown addresses. kKernelLeaf and
// kKernelCaller are in `kallsyms_text()`'s functions "k_leaf" and "k_caller".

#include <cstdint>
#include <fstream>
#include <string>

#include "recording/recording_writer.h"
#include "support/record_fixtures.h"

namespace swprof::testing {

inline constexpr uint64_t kThreadRecordingStart = 5'000'000'000;
inline constexpr uint64_t kKernelLeaf = 0xffffffff81000010;
inline constexpr uint64_t kKernelCaller = 0xffffffff81001020;

inline std::string kallsyms_text() { return "ffffffff81000000 T k_leaf\nffffffff81001000 T k_caller\n"; }

inline uint64_t at_seconds(double s) { return kThreadRecordingStart + static_cast<uint64_t>(s * 1e9); }

inline void write_thread_recording(const std::string& path) {
  RecordingHeader header;
  header.mode = "record";
  header.command = {"./threads"};
  header.event = "cpu-clock";
  header.start_monotonic_ns = kThreadRecordingStart;
  RecordingWriter w(path, header);
  auto comm = [&](uint32_t tid, double t, const std::string& name) {
    CommRecord c;
    c.time = at_seconds(t);
    c.pid = 100;
    c.tid = tid;
    c.comm = name;
    w.write(c);
  };
  const std::vector<uint8_t> stack(64, 0);
  auto sample = [&](uint32_t tid, double t, std::vector<uint64_t> kernel = {}) {
    const OwnedSample s = make_sample(tid, at_seconds(t), 0x7ff000, stack, std::move(kernel));
    w.write(s.view);
  };
  comm(100, 0.0, "main");
  TaskRecord fork;
  fork.time = at_seconds(0.1);
  fork.pid = fork.ppid = 100;
  fork.tid = 101;
  fork.ptid = 100;
  w.write(fork);
  sample(100, 0.2, {kKernelLeaf, kKernelCaller});
  sample(101, 0.3);
  LostRecord lost;
  lost.time = at_seconds(0.35);
  lost.count = 5;
  w.write(lost);
  comm(101, 0.4, "worker");
  sample(101, 1.5);
  sample(102, 1.6);
  w.finish(EndRecord{"{}"});
}

// Changes a byte inside the zstd frame of the first chunk of the recording
// at `path`, so that nothing of it can be read (docs/recording-format.md:
// the chunks follow the 16 bytes of magic, version and header length, and
// the header; a chunk's frame follows its 16 bytes of magic and sizes).
inline void damage_first_chunk(const std::string& path) {
  std::fstream file(path, std::ios::binary | std::ios::in | std::ios::out);
  uint32_t header_len = 0;
  file.seekg(12);
  file.read(reinterpret_cast<char*>(&header_len), 4);
  const std::streamoff at = 16 + std::streamoff{header_len} + 16 + 8;
  char byte = 0;
  file.seekg(at);
  file.read(&byte, 1);
  byte = static_cast<char>(byte ^ 0x5a);
  file.seekp(at);
  file.write(&byte, 1);
}

}  // namespace swprof::testing
