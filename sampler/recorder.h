#pragma once
// Turns the records drained from the rings into the recording file, keeping
// the running totals the progress and the summary report.

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>

#include "recording/build_id.h"
#include "recording/recording_format.h"
#include "recording/recording_writer.h"
#include "recording/records.h"
#include "sampler/kernel_symbol_subset.h"
#include "sampler/namespace_files.h"
#include "sampler/offcpu_thinner.h"
#include "sampler/perf_records.h"
#include "sampler/sampled_files.h"
#include "sampler/session_summary.h"
#include "sampler/stack_extender.h"

namespace swprof {

class Recorder : private OffCpuThinner::Output {
 public:
  using Clock = std::chrono::steady_clock;

  // `progress` (may be empty) hears the totals at most every 250 ms, from tick().
  // Files found only inside a process's mount namespace are embedded up to
  // `embed_max` bytes in all; JIT perf maps are copied up to `perf_maps`.
  Recorder(PerfLayout layout, SessionProgressFn progress, uint64_t embed_max = kDefaultEmbedMaxBytes,
           PerfMapLimits perf_maps = {})
      : layout_(layout), progress_(std::move(progress)), namespace_files_(embed_max, ProcessRoots(), perf_maps) {}

  // Keeps what was at `path` as PATH.old (keep_previous_recording; named in
  // the summary), creates the file (readable only by its owner) and writes
  // the header and swprof's own vDSO image.
  void open(const std::string& path, const RecordingHeader& header);
  // The session has off-CPU events (the summary and end record count them).
  // Their samples of waits shorter than `min_ns` whose stack repeats an
  // earlier one are written as OffCpuRepeatRecord (OffCpuThinner); 0 writes
  // every sample. Call before the first off-CPU record.
  void record_off_cpu(uint64_t min_ns);
  // Reads up to `max_beyond` bytes past each truncated on-CPU stack copy
  // from the live thread, kept where verified (StackExtender); 0, the
  // default, reads nothing. Call before the first record.
  void read_past_copies(uint32_t max_beyond) {
    extender_.emplace(max_beyond);
    summary_.stack_beyond = std::min(max_beyond, kMaxStackBeyond);
  }
  // One raw kernel record from a ring whose records follow `layout`.
  void handle(Bytes raw, const PerfLayout& layout);
  void handle(Bytes raw) { handle(raw, layout_); }
  // After a drain: decides the held off-CPU samples whose wait has lasted
  // --off-cpu-min by `now_ns` (CLOCK_MONOTONIC read before the drain).
  void release_off_cpu(uint64_t now_ns);
  // After a drain that began at `started_ns` (CLOCK_MONOTONIC, the clock of
  // the records' times): writes a FlushRecord, so that a report need not hold
  // records back for fear of older ones in later drains. Every record the
  // kernel had stamped by then, but for the last kFlushSlackNs, was in a
  // ring when it was read. Not with held off-CPU samples: those are
  // written later with their own older times.
  void drained(uint64_t started_ns);
  static constexpr uint64_t kFlushSlackNs = 10'000'000;
  // Whether the stacks of samples in the last second were read past their
  // copies: then the rings are best drained at every sample
  // (RingDrainer::set_prompt), so that those reads come while the threads
  // are still in the frames the copies missed.
  bool wants_prompt_drains() const;
  static constexpr uint64_t kPromptDrainsNs = 1'000'000'000;
  // A record made from /proc (attach: the threads and mappings that existed before).
  void write_synthesized(Record rec);
  // Between polls: flushes a chunk older than a second; reports progress.
  void tick();
  // The events were disabled at `time_ns` (CLOCK_MONOTONIC): no record is
  // later. The end record gives it as the recording's end, where waits
  // still going end (a thread blocked from before an attach to its end has
  // no switch-in). Without it the end is when finish() runs.
  void sampling_stopped(uint64_t time_ns) { stopped_ns_ = time_ns; }
  // Writes the end record and closes the file; `wait_status` is record's command's.
  SessionSummary finish(const std::string& end_reason, std::optional<int> wait_status);

  SessionSummary& summary() { return summary_; }
  // Where finish() reads the kernel's symbols from (tests point it elsewhere).
  void set_kallsyms_path(std::string path) { kallsyms_path_ = std::move(path); }

 private:
  void count(SampleView& s);
  // Kernel samples: the addresses whose symbols the end keeps (write_kernel_symbols).
  void note_kernel_addresses(const SampleView& s);
  void count(MappingRecord& m) {
    fill_build_id(m);
    sampled_files_.on_mapping(m);
  }
  void count(LostRecord& l) { summary_.lost += l.count; }
  void count(ThrottleRecord& t) { summary_.throttles += t.throttled; }
  // A thread counts once seen, sampled or not: by a sample, its name (a
  // start, exec or rename) or its fork or exit; as `info` counts them.
  void count(CommRecord& c) {
    tids_.insert(c.tid);
    if (c.exec) {
      namespace_files_.forget(c.pid);
      sampled_files_.on_exec(c.pid);
    }
  }
  void count(TaskRecord& t) {
    tids_.insert(t.tid);
    if (t.pid != t.tid) return;
    if (t.exit) {
      namespace_files_.process_exited(t.pid);
      sampled_files_.on_exit(t.pid);
    } else {
      namespace_files_.forget(t.pid);
      sampled_files_.on_fork(t.ppid, t.pid);
    }
  }
  template <typename T>
  void count(T&) {}

  void handle_off_cpu(Bytes raw, Record& rec);
  void write_off_cpu(const SampleView& s);
  void off_cpu_sample(Bytes raw) override;
  void off_cpu_repeat(const OffCpuRepeatRecord& repeat) override;
  void fill_build_id(MappingRecord& m);
  void write_image(const ImageRecord& image) { writer_->write(image); }
  void copy_perf_maps(PerfMapRound round = PerfMapRound::kStep);
  void write_kernel_symbols();
  void note_namespace_files();
  void write_end_record(const std::string& end_reason, std::optional<int> wait_status);
  SessionProgress progress() const;
  double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - started_).count(); }

  PerfLayout layout_;
  PerfLayout off_cpu_layout_;
  std::optional<OffCpuThinner> thinner_;
  std::optional<StackExtender> extender_;
  uint64_t last_drain_ns_ = 0;
  SessionProgressFn progress_;
  std::optional<RecordingWriter> writer_;
  SessionSummary summary_;
  std::unordered_set<uint32_t> tids_;  // every thread seen (summary.threads)
  std::map<std::string, BuildId> build_ids_;  // of images ([vdso])
  NamespaceFiles namespace_files_;
  bool unflushed_ = false;  // records written since the last FlushRecord
  bool kernel_samples_ = false;      // the header's: kernel addresses are collected and named at the end
  KernelAddresses kernel_addresses_;
  SampledFiles sampled_files_;  // for the build-id cache (summary.sampled_files)
  std::string kallsyms_path_ = "/proc/kallsyms";
  std::optional<uint64_t> stopped_ns_;
  Clock::time_point last_perf_map_copy_;
  Clock::time_point started_;
  Clock::time_point last_progress_;
};

}  // namespace swprof
