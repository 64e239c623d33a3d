#include "sampler/sampling_session.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <optional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/error.h"
#include "recording/recording_writer.h"
#include "sampler/blocked_threads.h"
#include "sampler/event_set.h"
#include "sampler/launcher.h"
#include "sampler/proc.h"
#include "sampler/recorder.h"
#include "sampler/ring_drainer.h"
#include "sampler/stop_signals.h"

namespace swprof {
namespace {

using Clock = std::chrono::steady_clock;

// The timer events and, with --off-cpu/--wall, the off-CPU events: each set
// has its own rings and record layout. Once they are open, a RingDrainer
// takes their records out (declared last: its thread ends before the rings
// are unmapped).
struct SessionEvents {
  EventSet timer;
  std::optional<EventSet> off_cpu;
  std::optional<RingDrainer> drainer;

  SessionEvents(const SamplingOptions& o, bool enable_on_exec) : timer(o, enable_on_exec) {
    if (o.off_cpu) off_cpu.emplace(o, enable_on_exec, EventRole::kOffCpu);
  }
  std::vector<EventSet*> sets() {
    std::vector<EventSet*> out{&timer};
    if (off_cpu) out.push_back(&*off_cpu);
    return out;
  }
  // Opens both sets on one task; returns 0 or an errno, with the set that failed.
  int open_task(pid_t pid, EventSet** failed) {
    for (EventSet* set : sets()) {
      if (int err = set->open_task(pid)) {
        *failed = set;
        return err;
      }
    }
    return 0;
  }
  // Starts taking the rings' records out, as soon as the events are open:
  // what the recorder does before its loop (an attach's /proc reads) then
  // costs no samples. Samples are queued with their stack copies cut to the
  // valid bytes (a few KiB of the 32 KiB each reserves in the ring). Room
  // for the records not written yet: four times what all the rings hold,
  // and at least 64 MiB.
  void start_draining() {
    std::vector<RingSetDrainFn> fns;
    std::vector<pollfd> fds;
    uint64_t ring_bytes = 0;
    for (EventSet* set : sets()) {
      fns.push_back([set, scratch = std::vector<uint8_t>()](const RecordFn& fn) mutable {
        const PerfLayout layout = set->layout();
        return set->drain([&](Bytes raw) { fn(cut_stack_copy(raw, layout, scratch)); });
      });
      for (const pollfd& p : set->poll_fds()) fds.push_back(p);
      ring_bytes += set->ring_bytes() * set->poll_fds().size();
    }
    drainer.emplace(std::move(fns), std::move(fds), std::max<uint64_t>(uint64_t{64} << 20, 4 * ring_bytes));
  }
  // Writes what one pass over the rings found (in the order of sets()).
  void write(const DrainedBatch& batch, Recorder& recorder) {
    const std::vector<EventSet*> all = sets();
    for (size_t i = 0; i < all.size() && i < batch.sets.size(); ++i) {
      const PerfLayout layout = all[i]->layout();
      const DrainedBatch::Records& records = batch.sets[i];
      for (size_t r = 0; r < records.count(); ++r) recorder.handle(records.record(r), layout);
    }
    recorder.summary().malformed += batch.malformed;
    recorder.release_off_cpu(batch.started_ns);
    recorder.drained(batch.started_ns);
  }
  void describe(SessionSummary& summary) {
    for (EventSet* set : sets()) set->describe(summary);
  }
};

// Writes what the rings deliver (taken out by the events' RingDrainer) until
// `done()` returns a reason or a stop signal arrives; then stops the events
// and writes what is left.
template <typename DoneFn>
std::string drain_until(SessionEvents& events, Recorder& recorder, DoneFn&& done) {
  if (!events.drainer) events.start_draining();
  RingDrainer& drainer = *events.drainer;
  std::string reason;
  while (reason.empty()) {
    std::vector<DrainedBatch> batches = drainer.take(std::chrono::milliseconds(100));
    for (const DrainedBatch& batch : batches) events.write(batch, recorder);
    drainer.recycle(std::move(batches));
    drainer.set_prompt(recorder.wants_prompt_drains());
    recorder.tick();
    if (StopSignals::requested()) reason = StopSignals::reason();
    else reason = done();
  }
  for (EventSet* set : events.sets()) set->set_enabled(false);
  recorder.sampling_stopped(monotonic_now_ns());
  for (const DrainedBatch& batch : drainer.finish()) events.write(batch, recorder);
  return reason;
}

RecordingHeader make_header(const std::string& mode, const SamplingOptions& o, const EventSet& events) {
  RecordingHeader h;
  h.mode = mode;
  h.event = o.event.name;
  h.frequency = o.frequency;
  h.period = o.period;
  h.stack_size = o.stack_size;
  h.regs_mask = kX86_64RegsMask;
  h.kernel_samples = events.kernel();
  h.kernel_note = events.kernel_note();
  if (o.off_cpu) {
    h.off_cpu = true;
    h.off_cpu_settings = o.off_cpu->settings;
    h.default_weight = o.off_cpu->default_weight();
  }
  stamp_header(h);
  return h;
}

// Fails early, before anything runs, when the output cannot be written: the
// file itself, or when it is new or a previous recording will be moved to
// PATH.old, its folder.
void check_output_writable(const std::string& path) {
  if (path.empty()) throw Error("empty output path");
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw Error("cannot write output file '" + path + "': it is a directory");
  const auto old = previous_recording_name(path);
  if (old && stat(old->c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw Error("cannot keep the previous recording '" + path + "' as '" + *old + "': it is a directory");
  if (!old && access(path.c_str(), F_OK) == 0) {
    if (access(path.c_str(), W_OK) != 0) throw Error("cannot write output file '" + path + "': " + errno_text(errno));
    return;
  }
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (access(dir.c_str(), W_OK) != 0)
    throw Error("cannot write output file '" + path + "': directory '" + dir + "': " + errno_text(errno));
}

void raise_fd_limit() {
  rlimit lim;
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

// Reaps every finished child (swprof is the subreaper of the whole tree).
// Returns true when no children are left.
bool reap_children(pid_t main_child, std::optional<int>& main_status) {
  for (;;) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      if (pid == main_child) main_status = status;
      continue;
    }
    return pid < 0 && errno == ECHILD;
  }
}

std::optional<int> wait_briefly(pid_t pid, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  do {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    usleep(10000);
  } while (Clock::now() < deadline);
  return std::nullopt;
}


// The started command, owned by run_record until it has been reaped. On
// every way out that did not see it end (an error, an exception) it is
// stopped as on Ctrl-C: SIGTERM, a short wait, then SIGKILL; and reaped.
class CommandGuard {
 public:
  explicit CommandGuard(pid_t pid) : pid_(pid) {}
  ~CommandGuard() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    if (wait_briefly(pid_, std::chrono::milliseconds(500))) return;
    kill(pid_, SIGKILL);
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  CommandGuard(const CommandGuard&) = delete;
  CommandGuard& operator=(const CommandGuard&) = delete;
  // The command has been reaped: its pid may be reused, never signal it.
  void release() { pid_ = -1; }

 private:
  pid_t pid_;
};

}  // namespace

SessionSummary run_record(const RecordRequest& req) {
  if (req.command.empty()) throw Error("no command given; usage: swprof record [options] -- COMMAND [ARGS...]");
  check_output_writable(req.output);
  raise_fd_limit();
  StopSignals signals;
  // Orphaned grandchildren are re-parented to us, so "no children left" means
  // the whole process tree has exited.
  prctl(PR_SET_CHILD_SUBREAPER, 1);

  SessionEvents events(req.sampling, /*enable_on_exec=*/true);
  Launcher child(req.command);
  EventSet* failed = nullptr;
  if (int err = events.open_task(child.pid(), &failed)) throw Error(failed->describe_setup_error(err, child.pid()));
  // Stamped before the command runs: no sample is older than the start time.
  RecordingHeader header = make_header("record", req.sampling, events.timer);
  header.command = req.command;
  header.target_pid = child.pid();
  events.start_draining();
  child.release();
  CommandGuard command(child.pid());
  StopSignals::kill_on_abort(child.pid());

  Recorder recorder(events.timer.layout(), req.progress, req.sampling.embed_max_bytes,
                    PerfMapLimits::per_process_max(req.sampling.perf_map_max_bytes));
  if (req.sampling.off_cpu) recorder.record_off_cpu(req.sampling.off_cpu->settings.min_ns);
  if (req.sampling.stack_beyond) recorder.read_past_copies(req.sampling.stack_beyond);
  recorder.open(req.output, header);

  std::optional<int> main_status;
  std::string reason = drain_until(events, recorder, [&]() -> std::string {
    const bool none_left = reap_children(child.pid(), main_status);
    if (main_status) command.release();
    return none_left ? "exited" : "";
  });
  if (!main_status) {
    // Interrupted while the command still runs: stop it like perf does and
    // give it a moment, but finalize the file before waiting any longer.
    kill(child.pid(), SIGTERM);
    main_status = wait_briefly(child.pid(), std::chrono::milliseconds(1000));
    if (main_status) command.release();
  }
  SessionSummary summary = recorder.finish(reason, main_status);
  if (!main_status) {
    // It ignores SIGTERM: wait for it (a second Ctrl-C aborts the wait).
    int status = 0;
    if (waitpid(child.pid(), &status, 0) == child.pid()) {
      summary.wait_status = status;
      summary.has_wait_status = true;
    }
    command.release();
  }
  events.describe(summary);
  return summary;
}

namespace {

// Opens events on every thread of `pid`, rescanning until no new thread shows
// up (threads started meanwhile are followed by inherit from then on). A stop
// signal ends the opening with the threads opened so far.
void open_all_threads(SessionEvents& events, pid_t pid) {
  std::unordered_set<pid_t> opened;
  for (int round = 0; round < 10; ++round) {
    bool added = false;
    for (pid_t tid : list_threads(pid)) {
      if (opened.count(tid)) continue;
      if (StopSignals::requested() && !opened.empty()) break;
      EventSet* failed = nullptr;
      int err = events.open_task(tid, &failed);
      if (err == ESRCH && tid != pid) continue;  // the thread exited meanwhile
      if (err == ESRCH) throw Error("process " + std::to_string(pid) + " exited before sampling could start");
      if (err) throw Error(failed->describe_setup_error(err, pid));
      opened.insert(tid);
      added = true;
    }
    if (!added || StopSignals::requested()) break;
  }
  if (opened.empty()) throw Error("process " + std::to_string(pid) + " exited before sampling could start");
}

void synthesize_process_state(Recorder& recorder, pid_t pid, uint64_t time) {
  for (pid_t tid : list_threads(pid)) {
    CommRecord c;
    c.time = time;
    c.pid = static_cast<uint32_t>(pid);
    c.tid = static_cast<uint32_t>(tid);
    c.comm = thread_comm(pid, tid);
    recorder.write_synthesized(c);
  }
  for (MappingRecord& m : read_code_mappings(pid, time)) recorder.write_synthesized(std::move(m));
}

// --off-cpu: threads off the CPU at the attach get the off-CPU sample and
// switch-out their events missed (sampler/blocked_threads.h). A stop signal
// ends the search: sampling then stops at once.
void synthesize_blocked_threads(Recorder& recorder, pid_t pid, uint32_t stack_size) {
  BlockedThreadSearch search;
  search.stack_size = stack_size;
  search.stop_requested = StopSignals::requested;
  for (const BlockedThread& t : find_blocked_threads(pid, search)) {
    recorder.write_synthesized(t.sample());
    recorder.write_synthesized(t.switch_out());
    ++recorder.summary().blocked_at_attach;
  }
}

// Throws Error for a request that cannot be sampled.
void check_attach_request(const AttachRequest& req) {
  if (req.pid <= 0) throw Error("invalid PID " + std::to_string(req.pid));
  auto state = process_state(req.pid);
  if (!state) throw Error("no process with PID " + std::to_string(req.pid));
  if (*state == 'Z' || *state == 'X') throw Error("process " + std::to_string(req.pid) + " has already exited (zombie)");
  if (req.pid == getpid()) throw Error("swprof cannot attach to itself");
  if (!(req.duration_s >= 0 && req.duration_s <= kMaxAttachSeconds))
    throw Error("invalid --duration: expected a finite number of seconds > 0 and <= " +
                std::to_string(static_cast<uint64_t>(kMaxAttachSeconds)));
}

// The process's arguments, from /proc/PID/cmdline (empty when unreadable).
std::vector<std::string> command_line_of(pid_t pid) {
  std::vector<std::string> command;
  auto cmdline = read_text_file("/proc/" + std::to_string(pid) + "/cmdline");
  if (!cmdline) return command;
  std::string arg;
  for (char ch : *cmdline) {
    if (ch == '\0') command.push_back(std::exchange(arg, {}));
    else arg += ch;
  }
  if (!arg.empty()) command.push_back(arg);
  return command;
}

}  // namespace

SessionSummary run_attach(const AttachRequest& req) {
  check_attach_request(req);
  check_output_writable(req.output);
  raise_fd_limit();
  StopSignals signals;

  SessionEvents events(req.sampling, /*enable_on_exec=*/false);
  RecordingHeader header = make_header("attach", req.sampling, events.timer);
  const uint64_t start_ns = header.start_monotonic_ns;
  open_all_threads(events, req.pid);
  events.start_draining();
  header.kernel_samples = events.timer.kernel();  // opening may have fallen back to user mode only
  header.kernel_note = events.timer.kernel_note();

  Recorder recorder(events.timer.layout(), req.progress, req.sampling.embed_max_bytes,
                    PerfMapLimits::per_process_max(req.sampling.perf_map_max_bytes));
  if (req.sampling.off_cpu) recorder.record_off_cpu(req.sampling.off_cpu->settings.min_ns);
  if (req.sampling.stack_beyond) recorder.read_past_copies(req.sampling.stack_beyond);
  header.target_pid = req.pid;
  header.command = command_line_of(req.pid);
  recorder.open(req.output, header);
  synthesize_process_state(recorder, req.pid, start_ns);
  if (req.sampling.off_cpu) synthesize_blocked_threads(recorder, req.pid, req.sampling.off_cpu->settings.stack_size);

  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(req.duration_s));
  std::string reason = drain_until(events, recorder, [&]() -> std::string {
    if (!process_alive(req.pid)) return "target exited";
    if (req.duration_s > 0 && Clock::now() >= deadline) return "duration";
    return "";
  });
  SessionSummary summary = recorder.finish(reason, std::nullopt);
  events.describe(summary);
  return summary;
}

}  // namespace swprof
