#pragma once
// Builders and a canonical text form for records, shared by the codec and
// recording-file tests.

#include <cstdio>
#include <string>
#include <vector>

#include "recording/recording_format.h"
#include "recording/recording_writer.h"
#include "recording/records.h"

namespace swprof::testing {

// The stamped header of a recording of `command` made by `swprof record`:
// cpu-clock samples with stacks of `stack_size` bytes.
inline RecordingHeader record_header(uint32_t stack_size, std::vector<std::string> command = {}) {
  RecordingHeader h;
  h.mode = "record";
  h.command = std::move(command);
  h.event = "cpu-clock";
  h.stack_size = stack_size;
  stamp_header(h);
  return h;
}

// Owns the bytes a SampleView points at.
struct OwnedSample {
  std::vector<uint8_t> stack;
  std::vector<uint64_t> kernel;
  SampleView view;
};

inline OwnedSample make_sample(uint32_t tid, uint64_t time, uint64_t sp, std::vector<uint8_t> stack,
                               std::vector<uint64_t> kernel = {}) {
  OwnedSample o;
  o.stack = std::move(stack);
  o.kernel = std::move(kernel);
  SampleView& s = o.view;
  s.time = time;
  s.pid = 100;
  s.tid = tid;
  s.cpu = tid % 2;
  s.period = 1001001;
  s.ip = 0x401000 + time;
  s.in_kernel = !o.kernel.empty();
  s.abi = 2;
  s.nregs = 20;
  for (uint32_t i = 0; i < s.nregs; ++i) s.regs[i] = 0x1000 * i + time;
  s.regs[7] = sp;
  s.stack = Bytes(o.stack.data(), o.stack.size());
  s.kernel_chain = Bytes(reinterpret_cast<const uint8_t*>(o.kernel.data()), o.kernel.size() * 8);
  return o;
}

inline std::string to_text(const Record& r) {
  char buf[512];
  return std::visit(
      [&](const auto& rec) -> std::string {
        using T = std::decay_t<decltype(rec)>;
        if constexpr (std::is_same_v<T, SampleView>) {
          std::string out;
          snprintf(buf, sizeof buf, "sample t=%llu %u/%u cpu=%u p=%llu ip=%llx k=%d tr=%d off=%d abi=%llu regs=",
                   (unsigned long long)rec.time, rec.pid, rec.tid, rec.cpu, (unsigned long long)rec.period,
                   (unsigned long long)rec.ip, rec.in_kernel, rec.stack_truncated, rec.off_cpu,
                   (unsigned long long)rec.abi);
          out += buf;
          for (uint32_t i = 0; i < rec.nregs; ++i) out += std::to_string(rec.regs[i]) + ",";
          out += " kchain=";
          for (size_t i = 0; i < rec.kernel_depth(); ++i) out += std::to_string(rec.kernel_ip(i)) + ",";
          out += " stack=" + std::to_string(rec.stack.size()) + ":";
          if (rec.stack_beyond) out += "beyond=" + std::to_string(rec.stack_beyond) + ":";
          if (!rec.beyond_changed.empty()) {
            out += "changed=";
            for (uint8_t b : rec.beyond_changed) out += std::to_string(b) + ".";
            out += ":delay=" + std::to_string(rec.beyond_delay_us) + ":";
          }
          for (uint8_t b : rec.stack) out += std::to_string(b) + ".";
          return out;
        } else if constexpr (std::is_same_v<T, MappingRecord>) {
          snprintf(buf, sizeof buf, "mapping t=%llu %u/%u %llx+%llx off=%llx prot=%u flags=%u dev=%u:%u ino=%llu bid=%s syn=%d %s",
                   (unsigned long long)rec.time, rec.pid, rec.tid, (unsigned long long)rec.start,
                   (unsigned long long)rec.length, (unsigned long long)rec.file_offset, rec.prot, rec.flags,
                   rec.dev_major, rec.dev_minor, (unsigned long long)rec.inode, rec.build_id_hex().c_str(),
                   rec.synthesized, rec.path.c_str());
          return buf;
        } else if constexpr (std::is_same_v<T, CommRecord>) {
          return "comm t=" + std::to_string(rec.time) + " " + std::to_string(rec.pid) + "/" + std::to_string(rec.tid) +
                 " exec=" + std::to_string(rec.exec) + " " + rec.comm;
        } else if constexpr (std::is_same_v<T, TaskRecord>) {
          snprintf(buf, sizeof buf, "%s t=%llu %u/%u parent %u/%u", rec.exit ? "exit" : "fork",
                   (unsigned long long)rec.time, rec.pid, rec.tid, rec.ppid, rec.ptid);
          return buf;
        } else if constexpr (std::is_same_v<T, LostRecord>) {
          return "lost t=" + std::to_string(rec.time) + " cpu=" + std::to_string(rec.cpu) + " n=" + std::to_string(rec.count);
        } else if constexpr (std::is_same_v<T, ThrottleRecord>) {
          return std::string(rec.throttled ? "throttle" : "unthrottle") + " t=" + std::to_string(rec.time) +
                 " cpu=" + std::to_string(rec.cpu);
        } else if constexpr (std::is_same_v<T, ImageRecord>) {
          return "image " + rec.name + " " + std::to_string(rec.bytes.size()) + " bytes";
        } else if constexpr (std::is_same_v<T, SwitchRecord>) {
          snprintf(buf, sizeof buf, "switch-%s t=%llu %u/%u cpu=%u preempted=%d syn=%d", rec.out ? "out" : "in",
                   (unsigned long long)rec.time, rec.pid, rec.tid, rec.cpu, rec.preempted, rec.synthesized);
          return buf;
        } else if constexpr (std::is_same_v<T, OffCpuRepeatRecord>) {
          return "off-cpu-repeat t=" + std::to_string(rec.time) + " " + std::to_string(rec.pid) + "/" +
                 std::to_string(rec.tid) + " ref=" + std::to_string(rec.ref_time);
        } else if constexpr (std::is_same_v<T, FlushRecord>) {
          return "flush t=" + std::to_string(rec.time);
        } else {
          return "end " + rec.json;
        }
      },
      r);
}

inline MappingRecord make_mapping(uint64_t time, const std::string& path, bool with_build_id) {
  MappingRecord m;
  m.time = time;
  m.pid = m.tid = 100;
  m.start = 0x400000;
  m.length = 0x2000;
  m.file_offset = 0x1000;
  m.prot = 5;
  m.flags = 2;
  m.dev_major = 8;
  m.dev_minor = 1;
  m.inode = 123456;
  if (with_build_id) {
    m.build_id_size = 20;
    for (uint8_t i = 0; i < 20; ++i) m.build_id[i] = static_cast<uint8_t>(i * 7);
  }
  m.path = path;
  return m;
}

// A finished recording of `samples` samples of three threads, without
// mappings, whose stacks are 1 KiB of noise zstd cannot shrink: a file far
// larger than the head RecordingBytes keeps when it opens one.
inline void write_noise_recording(const std::string& path, int samples = 200) {
  RecordingWriter w(path, record_header(8192));
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < samples; ++i) {
    std::vector<uint8_t> stack(1024);
    for (uint8_t& b : stack) b = static_cast<uint8_t>((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 56);
    w.write(make_sample(100 + static_cast<uint32_t>(i % 3), 1000 + static_cast<uint64_t>(i), 0x7ff000, stack).view);
  }
  w.finish(EndRecord{"{}"});
}

}  // namespace swprof::testing
