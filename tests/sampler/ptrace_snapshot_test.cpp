#include "sampler/ptrace_snapshot.h"

#include <poll.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <thread>

#include "common/error.h"
#include "sampler/proc.h"
#include "sampler/task_files.h"

using namespace swprof;

namespace {

// A forked child, killed and reaped when the test ends unless it was reaped.
class Child {
 public:
  // busy: spins; otherwise blocks in read() on a pipe and exits 7 once a
  // byte comes (proof that the interrupted read() restarted).
  explicit Child(bool busy) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    pid_ = fork();
    if (pid_ == 0) {
      close(fds[1]);
      while (busy) asm volatile("" ::: "memory");
      char c;
      _exit(read(fds[0], &c, 1) == 1 ? 7 : 1);
    }
    close(fds[0]);
    write_end_ = fds[1];
  }
  ~Child() {
    close(write_end_);
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }
  void wait_state(char state) const {
    for (int i = 0; i < 500; ++i) {
      auto stat = read_task_stat(pid_, pid_);
      if (stat && stat->state == state) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL("the child never reached state " << state);
  }
  // Writes the byte and reaps the child: its exit code.
  int release() {
    REQUIRE(write(write_end_, "x", 1) == 1);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  int write_end_ = -1;
};

std::string status_field(pid_t pid, const std::string& key) {
  auto text = read_text_file("/proc/" + std::to_string(pid) + "/status");
  REQUIRE(text);
  auto at = text->find(key + ":");
  REQUIRE(at != std::string::npos);
  auto value = text->find_first_not_of(" \t", at + key.size() + 1);
  return text->substr(value, text->find('\n', value) - value);
}

std::string error_of(pid_t pid) {
  try {
    check_dump_target(pid);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("ptrace's registers in the perf order of kX86_64RegsMask", "[ptrace_snapshot]") {
  user_regs_struct r{};
  r.rax = 1; r.rbx = 2; r.rcx = 3; r.rdx = 4; r.rsi = 5; r.rdi = 6; r.rbp = 7; r.rsp = 8; r.rip = 9;
  r.eflags = 10; r.cs = 11; r.ss = 12; r.r8 = 13; r.r9 = 14; r.r10 = 15; r.r11 = 16; r.r12 = 17;
  r.r13 = 18; r.r14 = 19; r.r15 = 20; r.orig_rax = 99; r.fs_base = 98;
  auto perf = perf_order_registers(r);
  for (size_t i = 0; i < perf.size(); ++i) CHECK(perf[i] == i + 1);
}

TEST_CASE("a thread's sample: ip and sp, off-CPU unless running, the ip-and-sp-only flag", "[ptrace_snapshot]") {
  ThreadSnapshot t;
  t.tid = 12;
  t.state = 'S';
  t.time = 555;
  t.nregs = 20;
  t.regs[7] = 0x7ffd0000;
  t.regs[8] = 0x401234;
  t.ip_sp_only = true;
  t.stack = {1, 2, 3, 4, 5, 6, 7, 8};
  SampleView s = t.view(10);
  CHECK(s.pid == 10);
  CHECK(s.tid == 12);
  CHECK(s.time == 555);
  CHECK(s.ip == 0x401234);
  CHECK(s.off_cpu);
  CHECK(s.ip_sp_only);
  CHECK(s.nregs == 20);
  CHECK(s.abi == 2);
  CHECK(s.stack.size() == 8);
  t.state = 'R';
  CHECK_FALSE(t.view(10).off_cpu);
}

TEST_CASE("what cannot be dumped, each in one line", "[ptrace_snapshot]") {
  CHECK(error_of(0) == "invalid PID 0");
  CHECK(error_of(getpid()) == "swprof cannot dump itself");
  CHECK(error_of(2).find("2 is a kernel thread (kthreadd)") == 0);
  pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  CHECK(error_of(gone) == "no such process " + std::to_string(gone));
  Child traced(false);
  REQUIRE(ptrace(PTRACE_SEIZE, traced.pid(), nullptr, nullptr) == 0);
  const std::string err = error_of(traced.pid());
  ptrace(PTRACE_INTERRUPT, traced.pid(), nullptr, nullptr);
  waitpid(traced.pid(), nullptr, __WALL);
  ptrace(PTRACE_DETACH, traced.pid(), nullptr, nullptr);
  CHECK(err.find(std::to_string(traced.pid()) + " is already traced by PID " + std::to_string(getpid())) == 0);
}

TEST_CASE("a blocked thread is read without stopping it", "[ptrace_snapshot][integration]") {
  Child child(false);
  child.wait_state('S');
  ProcessSnapshot snap = snapshot_process(child.pid(), {});
  REQUIRE(snap.threads.size() == 1);
  const ThreadSnapshot& t = snap.threads[0];
  CHECK(t.error.empty());
  CHECK(t.ip_sp_only);
  CHECK_FALSE(t.stopped);
  CHECK(t.syscall == 0);  // read
  CHECK(t.state == 'S');
  CHECK(t.sp() != 0);
  CHECK(t.stack.size() > 64);  // up to the end of the stack mapping (at most 32768)
  CHECK(t.stack.size() <= 32768);
  CHECK(status_field(child.pid(), "TracerPid") == "0");
  CHECK(child.release() == 7);
}

TEST_CASE("with stop_all a blocked thread is stopped, read with every register and released, its read goes on",
          "[ptrace_snapshot][integration]") {
  Child child(false);
  child.wait_state('S');
  SnapshotOptions options;
  options.stop_all = true;
  options.stack_bytes = 4096;
  ProcessSnapshot snap = snapshot_process(child.pid(), options);
  REQUIRE(snap.threads.size() == 1);
  const ThreadSnapshot& t = snap.threads[0];
  CHECK(t.error.empty());
  CHECK(t.stopped);
  CHECK_FALSE(t.ip_sp_only);
  CHECK(t.syscall == 0);
  CHECK(t.stop_ns > 0);
  CHECK(t.stack.size() == 4096);
  CHECK(status_field(child.pid(), "TracerPid") == "0");
  CHECK(child.release() == 7);  // the interrupted read() restarted and got the byte
}

TEST_CASE("a running thread is stopped for the read and runs on", "[ptrace_snapshot][integration]") {
  Child child(true);
  child.wait_state('R');
  ProcessSnapshot snap = snapshot_process(child.pid(), {});
  REQUIRE(snap.threads.size() == 1);
  const ThreadSnapshot& t = snap.threads[0];
  CHECK(t.error.empty());
  CHECK(t.stopped);
  CHECK(t.state == 'R');
  CHECK_FALSE(t.off_cpu());
  CHECK(t.ip() != 0);
  CHECK(status_field(child.pid(), "TracerPid") == "0");
  child.wait_state('R');
}

namespace {

int acks_pipe[2];
void ack_signal(int) {
  char a = 'a';
  (void)!write(acks_pipe[1], &a, 1);
}

}  // namespace

TEST_CASE("signals that arrive while threads are stopped reach the program, none swallowed",
          "[ptrace_snapshot][integration]") {
  REQUIRE(pipe(acks_pipe) == 0);
  pid_t child = fork();
  if (child == 0) {
    close(acks_pipe[0]);
    struct sigaction sa {};
    sa.sa_handler = ack_signal;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGRTMIN, &sa, nullptr);  // real-time: every one queued, none merged
    for (;;) pause();
  }
  close(acks_pipe[1]);
  struct Reap {
    pid_t pid;
    ~Reap() {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      close(acks_pipe[0]);
    }
  } reap{child};
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::atomic<int> sent = 0;
  std::atomic<bool> done = false;
  std::thread signaller([&] {
    for (int i = 0; i < 2000; ++i) {
      if (sigqueue(child, SIGRTMIN, sigval{}) == 0) ++sent;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    done = true;
  });
  SnapshotOptions options;
  options.stop_all = true;
  while (!done) snapshot_process(child, options);  // many signals come while the child is seized
  signaller.join();
  int acked = 0;
  char buf[512];
  for (int i = 0; i < 200 && acked < sent; ++i) {
    pollfd p{acks_pipe[0], POLLIN, 0};
    if (poll(&p, 1, 10) > 0) acked += static_cast<int>(read(acks_pipe[0], buf, sizeof buf));
  }
  CHECK(acked == sent);
  CHECK(status_field(child, "TracerPid") == "0");
}

TEST_CASE("a stopped (SIGSTOP) process stays stopped", "[ptrace_snapshot][integration]") {
  Child child(true);
  child.wait_state('R');
  kill(child.pid(), SIGSTOP);
  child.wait_state('T');
  SnapshotOptions options;
  options.stop_all = true;
  ProcessSnapshot snap = snapshot_process(child.pid(), options);
  CHECK(snap.group_stopped);
  REQUIRE(snap.threads.size() == 1);
  CHECK(snap.threads[0].stopped);
  // Detached, it wakes for a moment and enters the group stop again.
  child.wait_state('T');
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(read_task_stat(child.pid(), child.pid())->state == 'T');
  kill(child.pid(), SIGCONT);
  child.wait_state('R');
}
