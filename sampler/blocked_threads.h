#pragma once
// attach --off-cpu: a thread already off the CPU when sampling starts
// (blocked in a system call, or stopped: SIGSTOP, a tracer) has no
// switch-out sample until it runs and leaves the CPU again, so the time it
// waits from the attach on would have no stack. For each such thread this
// makes what the off-CPU event would have recorded, without stopping
// anything: the user pc and sp from /proc/PID/task/TID/syscall, the top of
// its stack read with process_vm_readv, and its kernel frames from
// /proc/PID/task/TID/stack with their addresses from /proc/kallsyms (when
// readable: root); plus a synthesized switch-out at the time it was seen.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "recording/records.h"

namespace swprof {

// One line of /proc/PID/task/TID/syscall: "NR ARG1..ARG6 SP PC" (hex args),
// or "-1 SP PC" when off the CPU outside a system call (stopped, or asleep
// in a page fault); nullopt for "running" (also said of a runnable thread
// waiting for a CPU) and for anything malformed.
struct TaskSyscall {
  int64_t nr = -1;
  uint64_t sp = 0;
  uint64_t pc = 0;
};
std::optional<TaskSyscall> parse_task_syscall(std::string_view text);

// Lines of /proc/PID/task/TID/stack, "[<0>] do_nanosleep+0x5e/0x140",
// innermost first; malformed lines are skipped.
struct KernelFrameName {
  std::string symbol;
  uint64_t offset = 0;
};
std::vector<KernelFrameName> parse_task_stack(std::string_view text);

// The addresses of the symbols `names` from one pass over the text of
// /proc/kallsyms (the first line naming a symbol wins: the kernel's own
// before a module's); empty when the addresses are hidden (zero:
// kernel.kptr_restrict).
using KernelSymbolAddresses = std::unordered_map<std::string, uint64_t>;
KernelSymbolAddresses kernel_symbol_addresses(std::string_view kallsyms, const std::unordered_set<std::string>& names);

// The frames' addresses; empty when a symbol is missing from `addresses`.
std::vector<uint64_t> resolve_kernel_frames(const std::vector<KernelFrameName>& frames,
                                            const KernelSymbolAddresses& addresses);

struct BlockedThread {
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t time = 0;  // CLOCK_MONOTONIC when its state was read
  TaskSyscall syscall;  // nr -1: off the CPU outside a system call
  std::vector<uint8_t> stack;         // from syscall.sp up
  std::vector<uint8_t> kernel_chain;  // u64 little-endian each, innermost first

  // The off-CPU sample and the switch-out the events would have recorded
  // (the sample views this object's bytes).
  SampleView sample() const;
  SwitchRecord switch_out() const;
};

// What find_blocked_threads reads besides the process, and when it gives up.
struct BlockedThreadSearch {
  uint32_t stack_size = 8192;  // bytes of each thread's stack copied
  // The text of /proc/kallsyms; called at most once, and only when some
  // thread has kernel frames.
  std::function<std::optional<std::string>()> read_kallsyms = read_proc_kallsyms;
  // Asked before each thread: true (a stop signal arrived) ends the search
  // with the threads found so far.
  std::function<bool()> stop_requested = [] { return false; };

  static std::optional<std::string> read_proc_kallsyms();
};

// The threads of `pid` off the CPU now (blocked in a system call, stopped,
// asleep in a page fault), with the start of their stacks. Threads that run
// or wait for a CPU, exit meanwhile or cannot be read are left out. The cost
// is a few /proc reads per thread and one pass over /proc/kallsyms in all.
std::vector<BlockedThread> find_blocked_threads(pid_t pid, const BlockedThreadSearch& search = {});

}  // namespace swprof
