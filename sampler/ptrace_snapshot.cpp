#include "sampler/ptrace_snapshot.h"

#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <optional>
#include <sstream>

#include "common/error.h"
#include "common/unique_fd.h"
#include "recording/recording_format.h"
#include "sampler/proc.h"
#include "sampler/remote_memory.h"
#include "sampler/stop_signals.h"
#include "sampler/task_files.h"

namespace swprof {

std::array<uint64_t, 20> perf_order_registers(const user_regs_struct& r) {
  return {r.rax, r.rbx, r.rcx, r.rdx, r.rsi, r.rdi, r.rbp, r.rsp, r.rip, r.eflags,
          r.cs,  r.ss,  r.r8,  r.r9,  r.r10, r.r11, r.r12, r.r13, r.r14, r.r15};
}

SampleView ThreadSnapshot::view(uint32_t pid) const {
  SampleView s;
  s.time = time;
  s.pid = pid;
  s.tid = tid;
  s.ip = ip();
  s.off_cpu = off_cpu();
  s.ip_sp_only = ip_sp_only;
  s.abi = nregs ? 2 : 0;  // PERF_SAMPLE_REGS_ABI_64
  s.nregs = nregs;
  s.regs = regs;
  s.stack = Bytes(stack.data(), stack.size());
  return s;
}

namespace {

// What /proc/PID/status says about who owns and who traces the process.
struct ProcStatus {
  pid_t tgid = 0;
  pid_t tracer = 0;
  uid_t uid = 0;
  std::string name;
};

std::optional<ProcStatus> read_status(pid_t pid) {
  auto text = read_text_file("/proc/" + std::to_string(pid) + "/status");
  if (!text) return std::nullopt;
  ProcStatus s;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string key;
    fields >> key;
    if (key == "Name:") fields >> s.name;
    else if (key == "Tgid:") fields >> s.tgid;
    else if (key == "TracerPid:") fields >> s.tracer;
    else if (key == "Uid:") fields >> s.uid;
  }
  return s;
}

// The errno of reading /proc/PID/syscall: 0 when this process may read the
// target's registers and memory (the ptrace access check), EACCES/EPERM when not.
int ptrace_read_error(pid_t pid) {
  UniqueFd fd(::open(("/proc/" + std::to_string(pid) + "/syscall").c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return errno;
  char buf[256];
  return ::read(fd.get(), buf, sizeof buf) < 0 ? errno : 0;
}

// Yama's word on tracing, when the LSM is there and restricts it.
std::string yama_hint() {
  auto text = read_text_file("/proc/sys/kernel/yama/ptrace_scope");
  if (!text || text->empty()) return "";
  switch ((*text)[0]) {
    case '1': return "; kernel.yama.ptrace_scope is 1 (only descendants may be traced): run as root or with CAP_SYS_PTRACE";
    case '2': return "; kernel.yama.ptrace_scope is 2: tracing needs CAP_SYS_PTRACE";
    case '3': return "; kernel.yama.ptrace_scope is 3: ptrace is disabled on this system";
    default: return "";
  }
}

std::string not_permitted(pid_t pid, uid_t uid) {
  return "not permitted to trace " + std::to_string(pid) + " (owned by uid " + std::to_string(uid) +
         "): run as that user, or as root / with CAP_SYS_PTRACE" + yama_hint();
}

std::string process_name(pid_t pid) {
  auto status = read_status(pid);
  return status ? status->name : "?";
}

uint64_t now_ns() { return monotonic_now_ns(); }

}  // namespace

void check_dump_target(pid_t pid) {
  const std::string p = std::to_string(pid);
  if (pid <= 0) throw Error("invalid PID " + p);
  auto status = read_status(pid);
  auto stat = read_task_stat(pid, pid);
  if (!status || !stat) throw Error("no such process " + p);
  if (status->tgid != pid)
    throw Error(p + " is a thread of process " + std::to_string(status->tgid) + ": dump " +
                std::to_string(status->tgid));
  if (pid == getpid()) throw Error("swprof cannot dump itself");
  if (stat->flags & kPfKthread) throw Error(p + " is a kernel thread (" + status->name + "): it has no user stack");
  if (stat->state == 'Z' || stat->state == 'X') throw Error("process " + p + " has already exited (zombie)");
  if (status->tracer != 0)
    throw Error(p + " is already traced by PID " + std::to_string(status->tracer) + " (" +
                process_name(status->tracer) + "): detach it first");
  int err = ptrace_read_error(pid);
  if (err == EACCES || err == EPERM) throw Error(not_permitted(pid, status->uid));
  if (err == ESRCH || err == ENOENT) throw Error("no such process " + p);
}

namespace {

// A thread seized with PTRACE_SEIZE: detached when destroyed, on every way
// out (errors and exceptions too). PTRACE_DETACH needs the thread stopped;
// one that is not yet is interrupted first.
class PtraceSeize {
 public:
  explicit PtraceSeize(pid_t tid) : tid_(tid) {}
  PtraceSeize(PtraceSeize&& other) noexcept : tid_(std::exchange(other.tid_, -1)) {}
  PtraceSeize& operator=(PtraceSeize&&) = delete;
  PtraceSeize(const PtraceSeize&) = delete;
  ~PtraceSeize() { detach(); }

  // 0, or the errno of PTRACE_SEIZE (ESRCH: the thread is gone).
  static int seize(pid_t tid) { return ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) == 0 ? 0 : errno; }
  pid_t tid() const { return tid_; }
  // The thread exited: nothing to detach.
  void forget() { tid_ = -1; }
  void detach();

 private:
  pid_t tid_;
};

// SIGCHLD blocked while it lives, so that sigtimedwait can wait for the
// notification of a ptrace stop (the kernel sends the tracer SIGCHLD).
class BlockedSigchld {
 public:
  BlockedSigchld() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  ~BlockedSigchld() {
    if (!sigismember(&old_, SIGCHLD)) pthread_sigmask(SIG_UNBLOCK, &set_, nullptr);
  }
  BlockedSigchld(const BlockedSigchld&) = delete;
  BlockedSigchld& operator=(const BlockedSigchld&) = delete;
  // Waits for a SIGCHLD, at most `ns`.
  void wait(uint64_t ns) const {
    timespec limit{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    sigtimedwait(&set_, nullptr, &limit);
  }

 private:
  sigset_t set_;
  sigset_t old_;
};

// Waits (up to `limit_ns`) for the ptrace stop PTRACE_INTERRUPT asked for.
// A signal that arrives first is delivered to the thread again (never
// swallowed) and the wait goes on.
enum class StopResult { kStopped, kExited, kTimedOut };
StopResult wait_for_interrupt_stop(PtraceSeize& seized, uint64_t limit_ns) {
  BlockedSigchld sigchld;
  const uint64_t deadline = now_ns() + limit_ns;
  for (;;) {
    int status = 0;
    pid_t got = waitpid(seized.tid(), &status, __WALL | WNOHANG);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return StopResult::kExited;  // ECHILD: gone and reaped by its parent
    if (got == seized.tid()) {
      if (WIFEXITED(status) || WIFSIGNALED(status)) return StopResult::kExited;
      if (WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_STOP) return StopResult::kStopped;
      if (WIFSTOPPED(status)) {
        // A signal-delivery stop: deliver the signal, then stop at the interrupt.
        ptrace(PTRACE_CONT, seized.tid(), nullptr, reinterpret_cast<void*>(static_cast<intptr_t>(WSTOPSIG(status))));
        ptrace(PTRACE_INTERRUPT, seized.tid(), nullptr, nullptr);
      }
      continue;
    }
    const uint64_t now = now_ns();
    if (now >= deadline) return StopResult::kTimedOut;
    // A SIGCHLD may have come before the block or for another thread: wake
    // up now and then to look again.
    sigchld.wait(std::min<uint64_t>(deadline - now, 10'000'000));
  }
}

void PtraceSeize::detach() {
  if (tid_ <= 0) return;
  if (ptrace(PTRACE_DETACH, tid_, nullptr, nullptr) != 0 && errno == ESRCH) {
    // Not stopped (never interrupted, or the stop was not seen yet).
    if (ptrace(PTRACE_INTERRUPT, tid_, nullptr, nullptr) == 0 &&
        wait_for_interrupt_stop(*this, 1'000'000'000) == StopResult::kStopped)
      ptrace(PTRACE_DETACH, tid_, nullptr, nullptr);
  }
  tid_ = -1;
}

constexpr uint64_t kStopLimitNs = 2'000'000'000;

// comm, state, wchan and (blocked) the kernel stack, read before anything stops.
ThreadSnapshot describe_thread(pid_t pid, pid_t tid) {
  ThreadSnapshot t;
  t.tid = static_cast<uint32_t>(tid);
  t.comm = thread_comm(pid, tid);
  if (auto stat = read_task_stat(pid, tid)) t.state = stat->state;
  t.wchan = read_task_wchan(pid, tid);
  if (t.state != 'R') {
    if (auto kernel = read_task_kernel_stack(pid, tid)) t.kernel_stack = std::move(*kernel);
  }
  return t;
}

// A blocked thread, from its syscall line and memory, without stopping it:
// the line is read again after the stack and must not have changed (else
// the thread ran meanwhile). Returns false when it cannot be read this way.
bool read_without_stopping(pid_t pid, ThreadSnapshot& t, uint32_t stack_bytes) {
  auto before = read_task_syscall(pid, static_cast<pid_t>(t.tid));
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!before || before->sp == 0) return false;  // running (or unreadable)
    const uint64_t time = now_ns();
    std::vector<uint8_t> stack = read_remote_memory(pid, before->sp, stack_bytes);
    if (stack.empty()) return false;
    auto after = read_task_syscall(pid, static_cast<pid_t>(t.tid));
    if (after && after->nr == before->nr && after->sp == before->sp && after->pc == before->pc) {
      t.time = time;
      t.syscall = before->nr;
      t.ip_sp_only = true;
      t.nregs = 20;
      t.regs = {};
      t.regs[7] = before->sp;
      t.regs[8] = before->pc;
      t.stack = std::move(stack);
      return true;
    }
    before = after;
  }
  return false;
}

// A seized thread on its way to being read.
struct Seized {
  PtraceSeize guard;
  ThreadSnapshot* thread;
  uint64_t interrupted_at = 0;
};

void read_stopped(pid_t pid, Seized& s, uint32_t stack_bytes) {
  ThreadSnapshot& t = *s.thread;
  user_regs_struct regs{};
  iovec io{&regs, sizeof regs};
  if (ptrace(PTRACE_GETREGSET, s.guard.tid(), reinterpret_cast<void*>(NT_PRSTATUS), &io) != 0) {
    t.error = errno == ESRCH ? "exited during the snapshot" : "cannot read its registers: " + errno_text(errno);
    return;
  }
  t.time = now_ns();
  t.stopped = true;
  t.ip_sp_only = false;
  t.nregs = 20;
  auto ordered = perf_order_registers(regs);
  std::copy(ordered.begin(), ordered.end(), t.regs.begin());
  if (t.syscall < 0 && static_cast<int64_t>(regs.orig_rax) >= 0) t.syscall = static_cast<int64_t>(regs.orig_rax);
  int err = 0;
  t.stack = read_remote_memory(pid, regs.rsp, stack_bytes, &err);
}

// Seizes the thread, or notes why it could not be.
std::optional<Seized> seize(ThreadSnapshot& t) {
  int err = PtraceSeize::seize(static_cast<pid_t>(t.tid));
  if (err == 0) return Seized{PtraceSeize(static_cast<pid_t>(t.tid)), &t};
  t.error = err == ESRCH ? "exited during the snapshot" : "cannot stop it: " + errno_text(err);
  return std::nullopt;
}

// Waits for one interrupted thread to stop and reads it.
void read_one(pid_t pid, Seized& s, uint32_t stack_bytes) {
  StopResult r = wait_for_interrupt_stop(s.guard, kStopLimitNs);
  if (r == StopResult::kExited) {
    s.guard.forget();
    s.thread->error = "exited during the snapshot";
  } else if (r == StopResult::kTimedOut) {
    s.thread->error = "did not stop within 2 s (uninterruptible wait?)";
  } else {
    read_stopped(pid, s, stack_bytes);
  }
}

void release(Seized& s) {
  s.guard.detach();
  s.thread->stop_ns = now_ns() - s.interrupted_at;
}

// Interrupts every seized thread (they stop in parallel), then waits for
// each and reads it. `one_instant`: every thread stays stopped until all are
// read (one consistent moment); otherwise each is released once read.
void read_seized(pid_t pid, std::vector<Seized>& seized, uint32_t stack_bytes, bool one_instant) {
  for (Seized& s : seized) {
    s.interrupted_at = now_ns();
    if (ptrace(PTRACE_INTERRUPT, s.guard.tid(), nullptr, nullptr) != 0) s.thread->error = "exited during the snapshot";
  }
  for (Seized& s : seized) {
    // After Ctrl-C the rest are only released.
    if (s.thread->error.empty() && StopSignals::requested()) s.thread->error = "not read: interrupted";
    if (s.thread->error.empty()) read_one(pid, s, stack_bytes);
    if (!one_instant) release(s);
  }
  if (one_instant)
    for (Seized& s : seized) release(s);
}

bool wanted(const SnapshotOptions& options, pid_t tid) {
  return options.only.empty() ||
         std::find(options.only.begin(), options.only.end(), static_cast<uint32_t>(tid)) != options.only.end();
}

}  // namespace

ProcessSnapshot snapshot_process(pid_t pid, const SnapshotOptions& options) {
  check_dump_target(pid);
  ProcessSnapshot snap;
  snap.pid = static_cast<uint32_t>(pid);
  snap.time = now_ns();
  snap.group_stopped = process_state(pid) == 'T';
  const bool stop_all = options.stop_all || !options.only.empty();
  std::map<uint32_t, ThreadSnapshot> threads;
  std::vector<Seized> seized;
  // Threads started meanwhile show up in the next listing; seized threads
  // cannot start any until they are released.
  for (int round = 0; round < 10 && !StopSignals::requested(); ++round) {
    bool added = false;
    for (pid_t tid : list_threads(pid)) {
      if (threads.count(static_cast<uint32_t>(tid)) || !wanted(options, tid)) continue;
      added = true;
      ThreadSnapshot& t = threads[static_cast<uint32_t>(tid)] = describe_thread(pid, tid);
      if (!stop_all && t.state != 'R' && read_without_stopping(pid, t, options.stack_bytes)) continue;
      if (auto s = seize(t)) seized.push_back(std::move(*s));
    }
    if (!added) break;
  }
  read_seized(pid, seized, options.stack_bytes, options.stop_all);
  for (auto& [tid, t] : threads) snap.threads.push_back(std::move(t));
  return snap;
}

}  // namespace swprof
