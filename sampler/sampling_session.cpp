#include "sampler/sampling_session.h"

#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/format.h"
#include "recording/build_id.h"
#include "recording/recording_writer.h"
#include "sampler/launcher.h"
#include "sampler/perf_event.h"
#include "sampler/perf_records.h"
#include "sampler/proc.h"
#include "sampler/ring_buffer.h"

namespace swprof {
namespace {

using Clock = std::chrono::steady_clock;

// ---- signals ----
//
// Every signal whose default action would end swprof while the command runs
// on is caught: the first one (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, ...)
// stops sampling and finalizes the file, like Ctrl-C; the second aborts.
// SIGPIPE and SIGXFSZ are caught and do nothing, so the write that caused
// them fails with EPIPE/EFBIG and the session ends through its error path.
// Handlers (unlike ignored signals) are reset by execve, so the command
// starts with the default dispositions.

volatile sig_atomic_t g_stop_requests = 0;
volatile sig_atomic_t g_stop_signal = 0;
volatile pid_t g_abort_kill_pid = 0;  // record: the command, stopped on abort too

void on_stop_signal(int sig) {
  g_stop_requests = g_stop_requests + 1;
  if (g_stop_signal == 0) g_stop_signal = sig;
  // Abort: chunks are written with one write(2) each, so the file on disk
  // ends at a chunk boundary and stays readable.
  if (g_stop_requests >= 2) {
    if (g_abort_kill_pid > 0) kill(g_abort_kill_pid, SIGTERM);
    _exit(130);
  }
}

void on_write_error_signal(int) {}

std::vector<int> stop_signal_numbers() {
  std::vector<int> sigs = {SIGINT,   SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
                           SIGVTALRM, SIGPROF, SIGXCPU, SIGPOLL, SIGPWR, SIGSTKFLT};
  for (int s = SIGRTMIN; s <= SIGRTMAX; ++s) sigs.push_back(s);
  return sigs;
}

class StopSignals {
 public:
  StopSignals() {
    g_stop_requests = 0;
    g_stop_signal = 0;
    for (int sig : stop_signal_numbers()) install(sig, on_stop_signal);
    install(SIGPIPE, on_write_error_signal);
    install(SIGXFSZ, on_write_error_signal);
  }
  ~StopSignals() {
    for (const auto& [sig, old] : saved_) sigaction(sig, &old, nullptr);
    g_abort_kill_pid = 0;
  }
  static void kill_on_abort(pid_t pid) { g_abort_kill_pid = pid; }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  static bool requested() { return g_stop_requests > 0; }
  // "interrupted" for SIGINT, "interrupted by SIGHUP" for the others.
  static std::string reason() {
    const int sig = g_stop_signal;
    if (sig == SIGINT || sig == 0) return "interrupted";
    const char* abbrev = sigabbrev_np(sig);
    return std::string("interrupted by ") + (abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig));
  }

 private:
  void install(int sig, void (*handler)(int)) {
    struct sigaction sa = {};
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    struct sigaction old = {};
    if (sigaction(sig, &sa, &old) == 0) saved_.emplace_back(sig, old);
  }

  std::vector<std::pair<int, struct sigaction>> saved_;
};

// ---- CPUs and buffer sizing ----

std::vector<int> online_cpus() {
  std::vector<int> cpus;
  auto text = read_text_file("/sys/devices/system/cpu/online");
  if (text) {
    // "0-3,5,7-8"
    size_t pos = 0;
    while (pos < text->size()) {
      int lo = 0, hi = 0, used = 0;
      if (sscanf(text->c_str() + pos, "%d%n", &lo, &used) != 1) break;
      pos += static_cast<size_t>(used);
      hi = lo;
      if (pos < text->size() && (*text)[pos] == '-') {
        ++pos;
        if (sscanf(text->c_str() + pos, "%d%n", &hi, &used) != 1) break;
        pos += static_cast<size_t>(used);
      }
      for (int c = lo; c <= hi; ++c) cpus.push_back(c);
      if (pos < text->size() && (*text)[pos] == ',') ++pos;
      else break;
    }
  }
  if (cpus.empty())
    for (int c = 0; c < online_cpu_count(); ++c) cpus.push_back(c);
  return cpus;
}

uint64_t next_pow2(uint64_t v) {
  uint64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

// Per-CPU ring size: room for 1/16 s of worst-case samples (a sample reserves
// the full --stack-size in the ring even when fewer bytes are valid).
uint64_t default_ring_bytes(const SamplingOptions& o) {
  const uint64_t rate = o.frequency ? o.frequency : 1000;
  const uint64_t per_sample = o.stack_size + 512;
  return std::clamp<uint64_t>(next_pow2(rate * per_sample / 16), 512u << 10, 32u << 20);
}

// ---- the perf events and their rings ----

class EventSet {
 public:
  EventSet(const SamplingOptions& options, bool enable_on_exec) : options_(options), cpus_(online_cpus()) {
    choice_.enable_on_exec = enable_on_exec;
    resolve_kernel_choice();
    ring_bytes_ = options.buffer_bytes ? options.buffer_bytes : default_ring_bytes(options);
    fds_by_cpu_.resize(cpus_.size());
    rings_.resize(cpus_.size());
  }

  // Opens the event for task `pid` on every CPU. Returns 0 or an errno.
  int open_task(pid_t pid) {
    for (size_t i = 0; i < cpus_.size(); ++i) {
      int err = 0;
      UniqueFd fd = open_with_fallbacks(pid, cpus_[i], &err);
      if (!fd.valid()) return err;
      if (int map_err = attach_to_ring(i, fd.get())) return map_err;
      fds_by_cpu_[i].push_back(std::move(fd));
    }
    return 0;
  }

  void set_enabled(bool on) {
    for (auto& fds : fds_by_cpu_)
      for (auto& fd : fds) ioctl(fd.get(), on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
  }

  std::vector<pollfd> poll_fds() const {
    std::vector<pollfd> out;
    for (size_t i = 0; i < rings_.size(); ++i)
      if (rings_[i].valid()) out.push_back({fds_by_cpu_[i].front().get(), POLLIN, 0});
    return out;
  }

  template <typename Fn>
  uint64_t drain(Fn&& fn) {
    uint64_t malformed = 0;
    for (auto& ring : rings_)
      if (ring.valid()) malformed += reader_.drain(ring.view(), fn).malformed;
    return malformed;
  }

  // What the summary says about how sampling was set up.
  void describe(SessionSummary& s) const {
    s.ring_bytes = ring_bytes_;
    s.stack_size = options_.stack_size;
    s.kernel_samples = choice_.kernel;
    s.kernel_note = kernel_note_;
  }

  PerfLayout layout() const {
    return {kSampleType | (choice_.kernel ? PERF_SAMPLE_CALLCHAIN : 0), kX86_64RegsMask};
  }
  bool kernel() const { return choice_.kernel; }
  const std::string& kernel_note() const { return kernel_note_; }
  uint64_t ring_bytes() const { return ring_bytes_; }
  const EventSpec& event() const { return options_.event; }

 private:
  void resolve_kernel_choice() {
    if (options_.kernel.has_value()) {
      choice_.kernel = *options_.kernel;
      if (!choice_.kernel) kernel_note_ = "kernel samples off (--no-kernel): time in syscalls and faults is not sampled";
      return;
    }
    choice_.kernel = kernel_sampling_permitted();
    if (!choice_.kernel) set_kernel_denied_note();
  }

  void set_kernel_denied_note() {
    auto paranoid = perf_event_paranoid();
    kernel_note_ = "kernel samples not permitted (kernel.perf_event_paranoid=" +
                   (paranoid ? std::to_string(*paranoid) : std::string("?")) +
                   "): time in syscalls and faults is not sampled; run as root, grant CAP_PERFMON, "
                   "or set kernel.perf_event_paranoid=1";
  }

  UniqueFd open_with_fallbacks(pid_t pid, int cpu, int* err) {
    for (;;) {
      perf_event_attr attr = make_attr(options_, choice_);
      attr.wakeup_watermark = static_cast<uint32_t>(std::min<uint64_t>(ring_bytes_ / 4, 1u << 30));
      UniqueFd fd = open_perf_event(attr, pid, cpu, err);
      if (fd.valid()) return fd;
      if (*err == EINVAL && choice_.build_id) {
        choice_.build_id = false;  // kernels before 5.12: inode-identified MMAP2
        continue;
      }
      if ((*err == EACCES || *err == EPERM) && choice_.kernel && !options_.kernel.has_value()) {
        choice_.kernel = false;
        set_kernel_denied_note();
        continue;
      }
      return fd;
    }
  }

  // The first event on a CPU owns its ring; later ones write into it.
  int attach_to_ring(size_t cpu_index, int fd) {
    if (!fds_by_cpu_[cpu_index].empty()) {
      if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, fds_by_cpu_[cpu_index].front().get()) != 0) return errno;
      return 0;
    }
    int err = 0;
    // Smaller rings fit under a lower mlock limit, down to the smallest
    // that still holds whole samples.
    for (uint64_t size = ring_bytes_; size >= min_ring_bytes(options_.stack_size); size /= 2) {
      rings_[cpu_index] = MappedRingBuffer::map(fd, size, &err);
      if (rings_[cpu_index].valid()) {
        ring_bytes_ = size;  // later CPUs start from what fit
        return 0;
      }
      if (err != EPERM && err != ENOMEM) break;
    }
    mmap_failed_ = true;
    return err;
  }

 public:
  bool mmap_failed() const { return mmap_failed_; }

 private:
  SamplingOptions options_;
  std::vector<int> cpus_;
  AttrChoice choice_;
  std::string kernel_note_;
  uint64_t ring_bytes_ = 0;
  bool mmap_failed_ = false;
  std::vector<std::vector<UniqueFd>> fds_by_cpu_;
  std::vector<MappedRingBuffer> rings_;
  RingBufferReader reader_;
};

std::string describe_setup_error(int err, const EventSet& events, pid_t pid) {
  if (events.mmap_failed())
    return "cannot map the perf ring buffer (" + errno_text(err) +
           "); lower --buffer-size, raise kernel.perf_event_mlock_kb, or run as root";
  return describe_open_error(err, events.event(), pid);
}

// ---- turning ring records into the recording, with running totals ----

class Recorder {
 public:
  Recorder(PerfLayout layout, bool progress) : layout_(layout), progress_(progress) {}

  void open(const std::string& path, const RecordingHeader& header) {
    writer_.emplace(path, header);
    started_ = Clock::now();
    auto vdso = read_own_vdso();
    if (!vdso.empty()) {
      writer_->write(ImageRecord{"[vdso]", Bytes(vdso.data(), vdso.size())});
      build_ids_["[vdso]"] = read_build_id(Bytes(vdso.data(), vdso.size())).value_or(BuildId{});
    }
  }

  void handle(Bytes raw) {
    ParsedPerfRecord parsed = parse_perf_record(raw, layout_);
    if (parsed.malformed) ++summary_.malformed;
    if (!parsed.record) return;
    std::visit([&](auto& rec) { count(rec); }, *parsed.record);
    writer_->write(*parsed.record);
  }

  void write_synthesized(Record rec) {
    if (auto* m = std::get_if<MappingRecord>(&rec)) fill_build_id(*m);
    writer_->write(rec);
  }

  void tick() {
    writer_->flush_if_older_than(std::chrono::milliseconds(1000));
    if (progress_ && Clock::now() - last_progress_ >= std::chrono::milliseconds(250)) {
      last_progress_ = Clock::now();
      fprintf(stderr, "\r\033[Kswprof: %.1f s  %llu samples  %llu lost  %.1f MB", elapsed_s(),
              static_cast<unsigned long long>(summary_.samples), static_cast<unsigned long long>(summary_.lost),
              static_cast<double>(writer_->bytes_written()) / 1e6);
    }
  }

  SessionSummary finish(const std::string& end_reason, std::optional<int> wait_status) {
    if (progress_) fprintf(stderr, "\r\033[K");
    summary_.end_reason = end_reason;
    summary_.duration_s = elapsed_s();
    summary_.threads = tids_.size();
    if (wait_status) {
      summary_.wait_status = *wait_status;
      summary_.has_wait_status = true;
    }
    nlohmann::json end = {{"end_reason", end_reason},
                          {"duration_ns", static_cast<uint64_t>(summary_.duration_s * 1e9)},
                          {"samples", summary_.samples},
                          {"kernel_mode_samples", summary_.kernel_mode_samples},
                          {"lost", summary_.lost},
                          {"truncated", summary_.truncated},
                          {"throttles", summary_.throttles},
                          {"malformed", summary_.malformed},
                          {"threads", summary_.threads}};
    if (wait_status) end["exit_code"] = exit_code_from_wait_status(*wait_status);
    writer_->finish(EndRecord{end.dump()});
    summary_.output = writer_->path();
    summary_.file_bytes = writer_->bytes_written();
    return summary_;
  }

  SessionSummary& summary() { return summary_; }

 private:
  void count(SampleView& s) {
    ++summary_.samples;
    summary_.kernel_mode_samples += s.in_kernel;
    summary_.truncated += s.stack_truncated;
    tids_.insert(s.tid);
  }
  void count(MappingRecord& m) { fill_build_id(m); }
  void count(LostRecord& l) { summary_.lost += l.count; }
  void count(ThrottleRecord& t) { summary_.throttles += t.throttled; }
  template <typename T>
  void count(T&) {}

  // The kernel leaves the build-id out when the file's first page was not in
  // memory (or on kernels before 5.12); read it from the file, once per path.
  void fill_build_id(MappingRecord& m) {
    if (m.build_id_size > 0 || m.path.empty()) return;
    auto it = build_ids_.find(m.path);
    if (it == build_ids_.end()) {
      if (m.path[0] != '/') return;
      it = build_ids_.emplace(m.path, read_build_id(m.path).value_or(BuildId{})).first;
    }
    m.build_id_size = static_cast<uint8_t>(std::min(it->second.size(), kBuildIdMax));
    std::copy_n(it->second.begin(), m.build_id_size, m.build_id.begin());
  }

  double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - started_).count(); }

  PerfLayout layout_;
  bool progress_;
  std::optional<RecordingWriter> writer_;
  SessionSummary summary_;
  std::unordered_set<uint32_t> tids_;
  std::map<std::string, BuildId> build_ids_;
  Clock::time_point started_;
  Clock::time_point last_progress_;
};

// Polls and drains until `done()` returns a reason or a stop signal arrives;
// then stops the events and drains what is left.
template <typename DoneFn>
std::string drain_until(EventSet& events, Recorder& recorder, DoneFn&& done) {
  auto handle = [&](Bytes raw) { recorder.handle(raw); };
  std::vector<pollfd> fds = events.poll_fds();
  std::string reason;
  while (reason.empty()) {
    poll(fds.data(), fds.size(), 100);
    recorder.summary().malformed += events.drain(handle);
    recorder.tick();
    if (StopSignals::requested()) reason = StopSignals::reason();
    else reason = done();
  }
  events.set_enabled(false);
  recorder.summary().malformed += events.drain(handle);
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
  stamp_header(h);
  return h;
}

// Fails early, before anything runs, when the output cannot be written.
void check_output_writable(const std::string& path) {
  if (path.empty()) throw Error("empty output path");
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw Error("cannot write output file '" + path + "': it is a directory");
  if (access(path.c_str(), F_OK) == 0) {
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

int exit_code_from_wait_status(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

SessionSummary run_record(const RecordRequest& req) {
  if (req.command.empty()) throw Error("no command given; usage: swprof record [options] -- COMMAND [ARGS...]");
  check_output_writable(req.output);
  raise_fd_limit();
  StopSignals signals;
  // Orphaned grandchildren are re-parented to us, so "no children left" means
  // the whole process tree has exited.
  prctl(PR_SET_CHILD_SUBREAPER, 1);

  EventSet events(req.sampling, /*enable_on_exec=*/true);
  Launcher child(req.command);
  if (int err = events.open_task(child.pid())) throw Error(describe_setup_error(err, events, child.pid()));
  // Stamped before the command runs: no sample is older than the start time.
  RecordingHeader header = make_header("record", req.sampling, events);
  header.command = req.command;
  header.target_pid = child.pid();
  child.release();
  CommandGuard command(child.pid());
  StopSignals::kill_on_abort(child.pid());

  Recorder recorder(events.layout(), req.progress);
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
// up (threads started meanwhile are followed by inherit from then on).
void open_all_threads(EventSet& events, pid_t pid) {
  std::unordered_set<pid_t> opened;
  for (int round = 0; round < 10; ++round) {
    bool added = false;
    for (pid_t tid : list_threads(pid)) {
      if (opened.count(tid)) continue;
      int err = events.open_task(tid);
      if (err == ESRCH && tid != pid) continue;  // the thread exited meanwhile
      if (err == ESRCH) throw Error("process " + std::to_string(pid) + " exited before sampling could start");
      if (err) throw Error(describe_setup_error(err, events, pid));
      opened.insert(tid);
      added = true;
    }
    if (!added) break;
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
  auto maps = read_text_file("/proc/" + std::to_string(pid) + "/maps");
  if (!maps) return;
  for (const ProcMapping& pm : parse_proc_maps(*maps)) {
    if (pm.perms.size() < 3 || pm.perms[2] != 'x') continue;  // code only, as the kernel reports
    MappingRecord m;
    m.time = time;
    m.pid = m.tid = static_cast<uint32_t>(pid);
    m.start = pm.start;
    m.length = pm.end - pm.start;
    m.file_offset = pm.offset;
    m.prot = 0x4 | (pm.perms[0] == 'r' ? 0x1 : 0) | (pm.perms[1] == 'w' ? 0x2 : 0);
    m.dev_major = pm.dev_major;
    m.dev_minor = pm.dev_minor;
    m.inode = pm.inode;
    m.path = pm.path;
    m.synthesized = true;
    recorder.write_synthesized(m);
  }
}

}  // namespace

SessionSummary run_attach(const AttachRequest& req) {
  if (req.pid <= 0) throw Error("invalid PID " + std::to_string(req.pid));
  auto state = process_state(req.pid);
  if (!state) throw Error("no process with PID " + std::to_string(req.pid));
  if (*state == 'Z' || *state == 'X') throw Error("process " + std::to_string(req.pid) + " has already exited (zombie)");
  if (req.pid == getpid()) throw Error("swprof cannot attach to itself");
  if (!(req.duration_s >= 0 && req.duration_s <= kMaxAttachSeconds))
    throw Error("invalid --duration: expected a finite number of seconds > 0 and <= " +
                std::to_string(static_cast<uint64_t>(kMaxAttachSeconds)));
  check_output_writable(req.output);
  raise_fd_limit();
  StopSignals signals;

  EventSet events(req.sampling, /*enable_on_exec=*/false);
  RecordingHeader header = make_header("attach", req.sampling, events);
  const uint64_t start_ns = header.start_monotonic_ns;
  open_all_threads(events, req.pid);
  header.kernel_samples = events.kernel();  // opening may have fallen back to user mode only
  header.kernel_note = events.kernel_note();

  Recorder recorder(events.layout(), req.progress);
  header.target_pid = req.pid;
  if (auto cmdline = read_text_file("/proc/" + std::to_string(req.pid) + "/cmdline")) {
    std::string arg;
    for (char ch : *cmdline) {
      if (ch == '\0') header.command.push_back(std::exchange(arg, {}));
      else arg += ch;
    }
    if (!arg.empty()) header.command.push_back(arg);
  }
  recorder.open(req.output, header);
  synthesize_process_state(recorder, req.pid, start_ns);

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

std::string format_summary(const SessionSummary& s) {
  char line[512];
  std::string out;
  snprintf(line, sizeof line, "swprof: %.2f s, %llu samples from %llu threads (%s), written to %s (%s",
           s.duration_s, static_cast<unsigned long long>(s.samples), static_cast<unsigned long long>(s.threads),
           s.end_reason.c_str(), s.output.c_str(), human_bytes(s.file_bytes).c_str());
  out += line;
  if (s.samples) {
    snprintf(line, sizeof line, ", %.0f bytes/sample", static_cast<double>(s.file_bytes) / static_cast<double>(s.samples));
    out += line;
  }
  out += ")\n";
  if (s.kernel_samples && s.kernel_mode_samples) {
    snprintf(line, sizeof line, "swprof: %llu samples (%.1f%%) landed in the kernel (syscalls, faults); kept with their user stacks\n",
             static_cast<unsigned long long>(s.kernel_mode_samples), percent(s.kernel_mode_samples, s.samples));
    out += line;
  }
  if (s.lost) {
    snprintf(line, sizeof line, "swprof: %llu samples lost (%.1f%%): lower -F or raise --buffer-size (now %s per CPU)\n",
             static_cast<unsigned long long>(s.lost), percent(s.lost, s.samples + s.lost), human_bytes(s.ring_bytes).c_str());
    out += line;
  } else {
    out += "swprof: 0 samples lost\n";
  }
  if (s.truncated && s.stack_size >= kMaxStackSize) {
    snprintf(line, sizeof line,
             "swprof: %llu samples (%.1f%%) had their stack copy cut at --stack-size %u, the maximum: these stacks are "
             "deeper than the kernel can copy\n",
             static_cast<unsigned long long>(s.truncated), percent(s.truncated, s.samples), s.stack_size);
    out += line;
  } else if (s.truncated) {
    snprintf(line, sizeof line,
             "swprof: %llu samples (%.1f%%) had their stack copy cut at --stack-size %u; raise --stack-size (up to %u) "
             "for complete stacks\n",
             static_cast<unsigned long long>(s.truncated), percent(s.truncated, s.samples), s.stack_size, kMaxStackSize);
    out += line;
  }
  if (s.throttles) {
    snprintf(line, sizeof line, "swprof: the kernel throttled sampling %llu times (kernel.perf_event_max_sample_rate); lower -F\n",
             static_cast<unsigned long long>(s.throttles));
    out += line;
  }
  if (s.malformed) {
    snprintf(line, sizeof line, "swprof: %llu malformed kernel records skipped\n", static_cast<unsigned long long>(s.malformed));
    out += line;
  }
  if (!s.kernel_note.empty()) out += "swprof: note: " + s.kernel_note + "\n";
  return out;
}

}  // namespace swprof
