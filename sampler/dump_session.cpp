#include "sampler/dump_session.h"

#include <time.h>
#include <unistd.h>

#include <functional>
#include <map>

#include "common/error.h"
#include "recording/recording_format.h"
#include "sampler/proc.h"
#include "sampler/recorder.h"
#include "sampler/perf_event.h"
#include "sampler/stop_signals.h"

namespace swprof {
namespace {

RecordingHeader dump_header(pid_t pid, const SnapshotOptions& options, uint64_t interval_ns) {
  RecordingHeader h;
  h.mode = "dump";
  h.event = "ptrace-wall";
  h.period = interval_ns;
  h.stack_size = options.stack_bytes;
  h.regs_mask = kX86_64RegsMask;
  h.kernel_samples = false;
  h.kernel_note = "dump reads kernel stacks as text, not into samples";
  h.target_pid = pid;
  h.default_weight = "wall";
  h.off_cpu = true;  // off-CPU samples (threads not running), weighed by their period: no switch records
  stamp_header(h);
  return h;
}

// Writes the threads' names (when new or changed) and samples of one snapshot.
class SnapshotWriter {
 public:
  explicit SnapshotWriter(Recorder& recorder) : recorder_(recorder) {}

  // The code mappings, again only when /proc/PID/maps changed.
  void mappings(pid_t pid, uint64_t time) {
    auto text = read_text_file("/proc/" + std::to_string(pid) + "/maps");
    if (!text) return;
    const size_t hash = std::hash<std::string>{}(*text);
    if (maps_written_ && hash == maps_hash_ && text->size() == maps_size_) return;
    maps_written_ = true;
    maps_hash_ = hash;
    maps_size_ = text->size();
    for (MappingRecord& m : code_mappings(pid, parse_proc_maps(*text), time)) recorder_.write_synthesized(std::move(m));
  }

  void threads(const ProcessSnapshot& snap, uint64_t period) {
    for (const ThreadSnapshot& t : snap.threads) {
      name(snap, t);
      if (t.nregs == 0) continue;
      SampleView s = t.view(snap.pid);
      s.period = period;
      recorder_.write_synthesized(s);
    }
  }

 private:
  void name(const ProcessSnapshot& snap, const ThreadSnapshot& t) {
    auto it = comms_.find(t.tid);
    if (it != comms_.end() && it->second == t.comm) return;
    comms_[t.tid] = t.comm;
    recorder_.write_synthesized(CommRecord{snap.time, snap.pid, t.tid, false, t.comm});
  }

  Recorder& recorder_;
  std::map<uint32_t, std::string> comms_;
  bool maps_written_ = false;
  size_t maps_hash_ = 0;
  size_t maps_size_ = 0;
};

// Sleeps until `deadline_ns` (CLOCK_MONOTONIC), waking for stop signals.
void sleep_until(uint64_t deadline_ns) {
  while (!StopSignals::requested()) {
    const uint64_t now = monotonic_now_ns();
    if (now >= deadline_ns) return;
    const uint64_t step = std::min<uint64_t>(deadline_ns - now, 10'000'000);
    timespec pause{0, static_cast<long>(step)};
    nanosleep(&pause, nullptr);
  }
}

}  // namespace

void write_snapshot_recording(const std::string& path, const ProcessSnapshot& snapshot) {
  Recorder recorder(PerfLayout{}, {});
  recorder.open(path, dump_header(static_cast<pid_t>(snapshot.pid), {}, 0));
  SnapshotWriter writer(recorder);
  writer.mappings(static_cast<pid_t>(snapshot.pid), snapshot.time);
  writer.threads(snapshot, 0);
  recorder.finish("snapshot", std::nullopt);
}

SessionSummary run_dump_recording(const DumpRequest& req) {
  if (req.samples < 1 || req.samples > kMaxDumpSamples) throw Error("invalid --samples: expected 1 or more");
  if (req.interval_ms < 1 || req.interval_ms > kMaxDumpIntervalMs)
    throw Error("invalid --interval: expected milliseconds >= 1 and <= " + std::to_string(kMaxDumpIntervalMs));
  check_dump_target(req.pid);
  StopSignals signals;
  const uint64_t interval_ns = req.interval_ms * 1'000'000;
  Recorder recorder(PerfLayout{}, req.progress);
  RecordingHeader header = dump_header(req.pid, req.snapshot, interval_ns);
  recorder.open(req.output, header);
  SnapshotWriter writer(recorder);
  std::string reason = "done";
  uint64_t next = monotonic_now_ns();
  for (uint64_t i = 0; i < req.samples; ++i) {
    if (StopSignals::requested()) { reason = StopSignals::reason(); break; }
    if (!process_alive(req.pid)) { reason = "target exited"; break; }
    writer.mappings(req.pid, monotonic_now_ns());
    ProcessSnapshot snap;
    try {
      snap = snapshot_process(req.pid, req.snapshot);
    } catch (const Error&) {
      if (process_alive(req.pid)) throw;
      reason = "target exited";
      break;
    }
    writer.threads(snap, interval_ns);
    recorder.tick();
    next += interval_ns;
    if (i + 1 < req.samples) sleep_until(next);
  }
  if (StopSignals::requested()) reason = StopSignals::reason();
  SessionSummary summary = recorder.finish(reason, std::nullopt);
  summary.stack_size = req.snapshot.stack_bytes;
  return summary;
}

}  // namespace swprof
