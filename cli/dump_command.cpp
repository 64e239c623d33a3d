// `swprof dump PID`: the stacks of every thread of a live process, now; or
// with --samples N a wall-clock recording of N such snapshots.

#include <sys/mman.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/number_options.h"
#include "cli/sampling_args.h"
#include "cli/symbolize_options.h"
#include "cli/unwind_options.h"
#include "common/error.h"
#include "common/text_escape.h"
#include "common/unique_fd.h"
#include "output/dump_writer.h"
#include "sampler/dump_session.h"
#include "sampler/proc.h"
#include "sampler/stop_signals.h"
#include "sampler/task_files.h"

namespace swprof::cli {
namespace {

constexpr uint64_t kMaxPid = 4194304;  // PID_MAX_LIMIT on 64-bit

struct DumpArgs {
  std::string pid;
  bool json = false;
  bool stop = false;
  bool verbose = false;
  std::string stack_size = "32768";
  uint64_t samples = 1;
  uint64_t interval_ms = 100;
  CLI::Option* samples_option = nullptr;
  std::string output = "swprof.data";
  UnwindArgs unwind;
  SymbolizeArgs symbolize;
};

pid_t parse_dump_pid(const std::string& text) {
  if (text.empty()) throw Error("no PID given; usage: swprof dump [options] PID");
  auto value = parse_count(text, "PID");
  if (!value || *value == 0 || *value > kMaxPid) throw Error("invalid PID '" + text + "'");
  return static_cast<pid_t>(*value);
}

uint32_t parse_stack_size(const std::string& text) {
  auto value = parse_count(text, "--stack-size");
  if (!value || *value < 8 || *value > 65528 || *value % 8)
    throw Error("invalid --stack-size '" + text + "': expected a multiple of 8 between 8 and 65528");
  return static_cast<uint32_t>(*value);
}

// The snapshot's recording lives in memory (memfd): nothing is left on disk,
// however swprof ends.
class MemoryRecording {
 public:
  MemoryRecording() : fd_(memfd_create("swprof-dump", MFD_CLOEXEC)) {
    if (!fd_.valid()) throw Error("cannot create the snapshot's in-memory file: " + errno_text(errno));
  }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_.get()); }

 private:
  UniqueFd fd_;
};

DumpThread to_dump_thread(const ThreadSnapshot& t) {
  DumpThread d;
  d.tid = t.tid;
  d.comm = t.comm;
  d.state = t.state;
  d.state_name = task_state_name(t.state);
  d.wchan = t.wchan;
  d.kernel_stack = t.kernel_stack;
  d.stopped = t.stopped;
  d.ip_sp_only = t.ip_sp_only;
  d.error = t.error;
  return d;
}

DumpView to_view(const ProcessSnapshot& snap, uint64_t unix_time_ns) {
  DumpView view;
  view.pid = snap.pid;
  view.name = thread_comm(static_cast<pid_t>(snap.pid), static_cast<pid_t>(snap.pid));
  view.unix_time_ns = unix_time_ns;
  view.group_stopped = snap.group_stopped;
  for (const ThreadSnapshot& t : snap.threads) view.threads.push_back(to_dump_thread(t));
  return view;
}

// Threads read without stopping them whose walk did not end cleanly are read
// again, stopped (every register known), and the snapshot unwound again.
// Returns whether any thread was read again.
bool redo_with_full_registers(pid_t pid, const SnapshotOptions& base, ProcessSnapshot& snap, const DumpView& view) {
  SnapshotOptions again = base;
  for (const DumpThread& t : view.threads)
    if (t.wants_full_registers()) again.only.push_back(t.tid);
  if (again.only.empty() || StopSignals::requested()) return false;
  bool redone = false;
  for (ThreadSnapshot& r : snapshot_process(pid, again).threads) {
    for (ThreadSnapshot& t : snap.threads) {
      if (t.tid != r.tid || r.nregs == 0) continue;
      r.state = t.state;  // as seen before anything was stopped
      r.wchan = t.wchan;
      r.kernel_stack = t.kernel_stack;
      t = std::move(r);
      redone = true;
    }
  }
  return redone;
}

std::vector<std::string> unwind_snapshot(const ProcessSnapshot& snap, const ScriptOptions& options, DumpView& view) {
  MemoryRecording recording;
  write_snapshot_recording(recording.path(), snap);
  return unwind_dump(recording.path(), options, view);
}

void print_stop_windows(const ProcessSnapshot& snap) {
  for (const ThreadSnapshot& t : snap.threads) {
    if (t.stopped)
      std::fprintf(stderr, "swprof: thread %u stopped for %.1f us\n", t.tid, static_cast<double>(t.stop_ns) / 1e3);
    else if (t.ip_sp_only)
      std::fprintf(stderr, "swprof: thread %u read without stopping it\n", t.tid);
  }
}

int run_one_snapshot(const DumpArgs& a, pid_t pid, const SnapshotOptions& snapshot_options) {
  StopSignals signals;
  const uint64_t unix_now = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  ScriptOptions options;
  options.unwind = a.unwind.to_options();
  options.symbolize = a.symbolize.to_options();
  a.symbolize.apply_debuginfod();
  ProcessSnapshot snap = snapshot_process(pid, snapshot_options);
  DumpView view = to_view(snap, unix_now);
  auto warnings = unwind_snapshot(snap, options, view);
  if (!a.stop && redo_with_full_registers(pid, snapshot_options, snap, view)) {
    view = to_view(snap, unix_now);
    warnings = unwind_snapshot(snap, options, view);
  }
  if (a.verbose) print_stop_windows(snap);
  if (a.json) write_dump_json(view, stdout);
  else write_dump_text(view, stdout);
  std::fflush(stdout);
  for (const auto& w : warnings) std::fprintf(stderr, "swprof: warning: %s\n", terminal_safe(w).c_str());
  if (StopSignals::requested()) return 128 + SIGINT;
  return kExitOk;
}

int run_dump(const DumpArgs& a) {
  const pid_t pid = parse_dump_pid(a.pid);
  SnapshotOptions snapshot_options;
  snapshot_options.stack_bytes = parse_stack_size(a.stack_size);
  snapshot_options.stop_all = a.stop;
  if (a.samples_option->count() == 0) return run_one_snapshot(a, pid, snapshot_options);
  if (a.json) throw Error("--json shows one snapshot: leave out --samples, or write a recording and report it with --format json");
  DumpRequest req;
  req.pid = pid;
  req.snapshot = snapshot_options;
  req.samples = a.samples;
  req.interval_ms = a.interval_ms;
  req.output = a.output;
  req.progress = stderr_progress();
  print_summary(run_dump_recording(req));
  return kExitOk;
}

}  // namespace

std::function<int()> add_dump_command(CLI::App& app) {
  auto* sub = app.add_subcommand("dump", "print the stacks of every thread of a running process, now (ptrace)");
  auto a = std::make_shared<DumpArgs>();
  sub->add_option("pid", a->pid, "the process to dump");
  sub->add_flag("--json", a->json, "print the snapshot as JSON");
  sub->add_flag("--stop", a->stop,
                "stop every thread for the read (one instant, all registers); by default blocked threads are read "
                "without stopping them");
  sub->add_flag("-v,--verbose", a->verbose, "say which threads were stopped, and for how long");
  sub->add_option("--stack-size", a->stack_size, "bytes of user stack read per thread (default 32768, max 65528)");
  a->samples_option = add_number(sub, "--samples", a->samples, {1, static_cast<double>(kMaxDumpSamples), true},
                                 "take N snapshots and write them as a wall-clock recording (-o)");
  add_number(sub, "--interval", a->interval_ms, {1, static_cast<double>(kMaxDumpIntervalMs), true},
             "milliseconds between snapshots with --samples (default 100)");
  sub->add_option("-o,--output", a->output, "recording file of --samples (default swprof.data)");
  a->unwind.add_to(sub);
  a->symbolize.add_to(sub);
  return [a]() { return run_dump(*a); };
}

}  // namespace swprof::cli
