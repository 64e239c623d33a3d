#pragma once
// The registers and stack of every thread of a live process, now (`swprof
// dump`). A thread blocked in a system call is read without stopping it:
// /proc/PID/task/TID/syscall gives the sp and pc saved at the call's entry,
// process_vm_readv the stack above sp, and a second read of the syscall line
// confirms the thread did not move meanwhile. Running threads (and every
// thread with SnapshotOptions::stop_all) are stopped for the moment of the
// read with PTRACE_SEIZE + PTRACE_INTERRUPT and released at once with
// PTRACE_DETACH, which restarts an interrupted system call and leaves a
// stopped (SIGSTOP) process stopped.

#include <sys/types.h>
#include <sys/user.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "recording/records.h"

namespace swprof {

struct ThreadSnapshot {
  uint32_t tid = 0;
  std::string comm;
  char state = '?';   // /proc/PID/task/TID/stat, read before anything was stopped
  std::string wchan;  // the kernel function it waits in ("" when running)
  int64_t syscall = -1;  // the system call it is blocked in, -1 for none
  std::vector<std::string> kernel_stack;  // of a blocked thread, when readable (root)
  bool stopped = false;      // read under ptrace: every register is known
  bool ip_sp_only = false;   // read without stopping it: only ip and sp are known
  uint64_t stop_ns = 0;      // stopped: PTRACE_INTERRUPT to PTRACE_DETACH
  uint64_t time = 0;         // CLOCK_MONOTONIC when read
  uint32_t nregs = 0;        // 0: nothing read (see error)
  std::array<uint64_t, kMaxSampleRegs> regs{};  // in kX86_64RegsMask order
  std::vector<uint8_t> stack;                   // from sp upwards
  std::string error;  // why nothing was read: "exited during the snapshot", ...

  uint64_t sp() const { return nregs > 7 ? regs[7] : 0; }
  uint64_t ip() const { return nregs > 8 ? regs[8] : 0; }
  bool off_cpu() const { return state != 'R'; }
  // A sample of this thread (pointing into its stack): no period, off-CPU
  // when it was not running.
  SampleView view(uint32_t pid) const;
};

struct ProcessSnapshot {
  uint32_t pid = 0;
  uint64_t time = 0;          // CLOCK_MONOTONIC at the start
  bool group_stopped = false; // stopped by SIGSTOP/SIGTSTP before the snapshot (and after it)
  std::vector<ThreadSnapshot> threads;  // by tid
};

struct SnapshotOptions {
  uint32_t stack_bytes = 32768;
  bool stop_all = false;        // stop every thread (one instant, every register)
  std::vector<uint32_t> only;   // when not empty: these threads only, each stopped
};

// Throws Error, in one line, when `pid` cannot be dumped: no such process, a
// kernel thread, swprof itself, not permitted (naming the cause: another
// user's process, Yama's ptrace_scope) or already traced (naming the tracer).
void check_dump_target(pid_t pid);

// Reads every thread (check_dump_target first). A thread that exits meanwhile
// keeps its error and no registers; the others go on. After a stop signal
// (StopSignals: Ctrl-C) the threads not yet read are only released.
ProcessSnapshot snapshot_process(pid_t pid, const SnapshotOptions& options);

// user_regs_struct (PTRACE_GETREGSET NT_PRSTATUS) in kX86_64RegsMask order:
// ax bx cx dx si di bp sp ip flags cs ss r8..r15.
std::array<uint64_t, 20> perf_order_registers(const user_regs_struct& r);

}  // namespace swprof
