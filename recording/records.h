#pragma once
// The records swprof keeps: parsed from perf ring buffers while recording,
// encoded into the recording file, and decoded again by readers. Views
// (Bytes members) point into a buffer owned by whoever produced the record
// and stay valid until that producer is asked for the next record.

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "common/byte_reader.h"

namespace swprof {

inline constexpr size_t kMaxSampleRegs = 24;
inline constexpr size_t kBuildIdMax = 20;

struct SampleView {
  uint64_t time = 0;  // CLOCK_MONOTONIC nanoseconds
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint32_t cpu = 0;
  uint64_t period = 0;
  uint64_t ip = 0;         // where the sample landed (a kernel address when in_kernel)
  bool in_kernel = false;  // the sample interrupted kernel mode (syscall, fault, irq)
  bool stack_truncated = false;  // the copied stack hit --stack-size
  // Taken as the thread was switched out (--off-cpu): no period; its weight is
  // the time until the thread ran again (SwitchRecord pairs).
  bool off_cpu = false;
  // Of the registers only ip and sp are known (a blocked thread read without
  // stopping it: /proc/PID/task/TID/syscall saves no others); the rest are 0.
  bool ip_sp_only = false;
  uint64_t abi = 0;        // PERF_SAMPLE_REGS_ABI_*; 0 (NONE): no user registers
  uint32_t nregs = 0;      // registers in kX86_64RegsMask bit order
  std::array<uint64_t, kMaxSampleRegs> regs{};
  Bytes kernel_chain;      // kernel return addresses, u64 little-endian each
  Bytes stack;             // the valid user stack bytes, starting at the user sp
  // Of `stack`'s bytes, the last ones were not copied by the kernel: the
  // recorder read them from the live thread after the sample, past the end
  // of a cut copy (sampler/stack_extender.h). 0: every byte is the kernel's.
  uint32_t stack_beyond = 0;
  // With stack_beyond: how the live thread's stack compared with the
  // kernel's copy near the copy's end, copy_end = sp + stack.size() -
  // stack_beyond, when the recorder read past it. Bit i (bit i % 8 of byte
  // i / 8) is set when the 8 bytes at copy_end - 8 * (i + 1) read
  // differently from the copy; the bits cover the copy's last 64 * size()
  // bytes. The unwinder shows the frames walked from the bytes past the copy
  // only when the copy's outermost frames read the same
  // (unwind/beyond_check.h). Empty with stack_beyond: the recorder kept the
  // bytes only where the copy's last KiB read the same (version 3).
  Bytes beyond_changed;
  // With beyond_changed: microseconds from the sample to the recorder's
  // read past the copy (at most kMaxStackReadDelayUs: later reads say so).
  uint32_t beyond_delay_us = 0;
  // A user call chain walked by the kernel (perf.data recorded with `perf
  // record -g`): the ip, then return addresses, u64 little-endian each. Set
  // only when the sample has no stack to unwind; RecordingUnwinder takes its
  // frames as they are.
  Bytes user_chain;
  // When set, keeps the bytes `stack` views as they are for as long as it is
  // held, past the producer's next record (the decoder writes later stacks
  // elsewhere): a consumer may keep the view instead of copying the bytes.
  std::shared_ptr<const void> stack_owner;

  size_t kernel_depth() const { return kernel_chain.size() / 8; }
  uint64_t kernel_ip(size_t i) const {
    uint64_t v;
    std::memcpy(&v, kernel_chain.data() + i * 8, 8);
    return v;
  }
  size_t user_chain_depth() const { return user_chain.size() / 8; }
};

struct MappingRecord {
  uint64_t time = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t start = 0;
  uint64_t length = 0;
  uint64_t file_offset = 0;
  uint32_t prot = 0;
  uint32_t flags = 0;
  uint32_t dev_major = 0;
  uint32_t dev_minor = 0;
  uint64_t inode = 0;
  uint8_t build_id_size = 0;
  std::array<uint8_t, kBuildIdMax> build_id{};
  bool synthesized = false;  // read from /proc/PID/maps at attach, not reported by the kernel
  std::string path;

  std::string build_id_hex() const;
};

struct CommRecord {
  uint64_t time = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  bool exec = false;
  std::string comm;
};

struct TaskRecord {
  bool exit = false;  // false: fork/clone
  uint64_t time = 0;
  uint32_t pid = 0;
  uint32_t ppid = 0;
  uint32_t tid = 0;
  uint32_t ptid = 0;
};

struct LostRecord {
  uint64_t time = 0;
  uint32_t cpu = 0;
  uint64_t count = 0;
};

struct ThrottleRecord {
  uint64_t time = 0;
  uint32_t cpu = 0;
  bool throttled = true;  // false: unthrottled
};

// A thread switched out (out) or in (!out), from PERF_RECORD_SWITCH. Only
// threads of --off-cpu / --wall recordings have them.
struct SwitchRecord {
  uint64_t time = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint32_t cpu = 0;
  bool out = false;
  bool preempted = false;    // switched out while runnable (involuntary)
  bool synthesized = false;  // made at attach for a thread already blocked
};

// An off-CPU sample not written because its stack equals an earlier written
// off-CPU sample of the same thread: the switch-out at `time` is charged to
// the sample written at `ref_time`.
struct OffCpuRepeatRecord {
  uint64_t time = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t ref_time = 0;
};

// A memory image kept in the recording, such as the [vdso] (which is no file).
struct ImageRecord {
  std::string name;
  Bytes bytes;
};

// Image names besides "[vdso]": a copy of the file a process mapped at `path`
// (found only inside its mount namespace), and the perf map (JIT symbols) of
// host process `pid`.
// The kernel symbols the samples hit: /proc/kallsyms lines (sampler/kernel_symbol_subset.h).
inline constexpr char kKallsymsImageName[] = "kallsyms";
// The most of a kallsyms text read (a kernel with every module loaded has ~20 MiB).
inline constexpr uint64_t kMaxKallsymsBytes = uint64_t{256} << 20;
inline std::string embedded_file_image_name(const std::string& path) { return "file:" + path; }
inline std::string perf_map_image_name(uint32_t pid) { return "perf-map:" + std::to_string(pid); }
// The pid of a perf_map_image_name; nullopt for any other name.
inline std::optional<uint32_t> pid_of_perf_map_image(const std::string& name) {
  constexpr std::string_view prefix = "perf-map:";
  if (!name.starts_with(prefix) || name.size() == prefix.size()) return std::nullopt;
  uint32_t pid = 0;
  const char* end = name.data() + name.size();
  auto [ptr, ec] = std::from_chars(name.data() + prefix.size(), end, pid);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return pid;
}

// A time-order barrier: no record after this one in the file is older than
// `time`. A reader that puts records back in time order (their rings were
// drained one after another) can let everything older go at once. swprof's
// recorder writes one after each drain of the rings; a perf.data file's
// FINISHED_ROUND records give one by perf's rule (perf_data_reader.h).
struct FlushRecord {
  uint64_t time = 0;
};

// Written last when a recording is finalized: JSON with the run's totals.
struct EndRecord {
  std::string json;
};

using Record = std::variant<SampleView, MappingRecord, CommRecord, TaskRecord, LostRecord,
                            ThrottleRecord, ImageRecord, EndRecord, SwitchRecord, OffCpuRepeatRecord,
                            FlushRecord>;

// When a record happened; nullopt for those that tell no time (images, the
// end record, flush barriers).
inline std::optional<uint64_t> time_of(const Record& record) {
  return std::visit(
      [](const auto& rec) -> std::optional<uint64_t> {
        using T = std::decay_t<decltype(rec)>;
        if constexpr (std::is_same_v<T, ImageRecord> || std::is_same_v<T, EndRecord> || std::is_same_v<T, FlushRecord>)
          return std::nullopt;
        else return rec.time;
      },
      record);
}

// A mapping path with no file behind it: anonymous memory ("//anon" in the
// kernel's mapping records; JIT compilers put code there), a memfd, or a
// bracketed name such as "[heap]".
inline bool is_anonymous_path(const std::string& path) {
  return path.empty() || path[0] != '/' || path.starts_with("//anon") || path.starts_with("/memfd:");
}

}  // namespace swprof
