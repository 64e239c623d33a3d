#pragma once
// Reading one thread of a live process without stopping it: what
// /proc/PID/task/TID/{stat,wchan,syscall,stack} say, and its stack memory
// (process_vm_readv). Each needs ptrace-read permission on the process
// (PTRACE_MODE_ATTACH_FSCREDS), none of them stops anything.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sampler/blocked_threads.h"

namespace swprof {

// "/proc/PID/task/TID/NAME".
std::string task_file(pid_t pid, pid_t tid, const char* name);

// /proc/PID/task/TID/syscall (parse_task_syscall of blocked_threads.h): the
// system call the thread is blocked in, with the user sp and pc saved at its
// entry; nullopt when it runs ("running") or the file cannot be read.
std::optional<TaskSyscall> read_task_syscall(pid_t pid, pid_t tid);

// /proc/PID/task/TID/stack: the kernel frames, innermost first
// ("anon_pipe_read+0x366"). Readable by root only: nullopt otherwise.
std::optional<std::vector<std::string>> read_task_kernel_stack(pid_t pid, pid_t tid);

// Field 3 of /proc/PID/task/TID/stat ('R', 'S', 'D', 'T', 't', 'Z', ...), and
// its flags (field 9; PF_KTHREAD = 0x00200000 marks a kernel thread).
struct TaskStat {
  char state = '?';
  uint64_t flags = 0;
};
std::optional<TaskStat> parse_task_stat(const std::string& text);
std::optional<TaskStat> read_task_stat(pid_t pid, pid_t tid);
inline constexpr uint64_t kPfKthread = 0x00200000;

// /proc/PID/task/TID/wchan: the kernel function the thread waits in, "" when
// it runs (the file says "0") or cannot be read.
std::string read_task_wchan(pid_t pid, pid_t tid);

// "sleeping" for 'S', "running" for 'R', ... (the names of proc(5)).
const char* task_state_name(char state);

}  // namespace swprof
