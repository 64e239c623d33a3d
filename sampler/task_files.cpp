#include "sampler/task_files.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "common/unique_fd.h"
#include "sampler/proc.h"

namespace swprof {
namespace {

std::string task_file(pid_t pid, pid_t tid, const char* name) {
  return "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/" + name;
}

std::optional<uint64_t> parse_number(const std::string& word) {
  if (word.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const bool negative = word[0] == '-';
  uint64_t v = negative ? static_cast<uint64_t>(std::strtoll(word.c_str(), &end, 0))
                        : std::strtoull(word.c_str(), &end, 0);
  if (errno != 0 || *end != '\0') return std::nullopt;
  return v;
}

}  // namespace

std::optional<TaskSyscall> parse_task_syscall(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  TaskSyscall s;
  if (words.size() == 1 && words[0] == "running") {
    s.running = true;
    return s;
  }
  if (words.size() != 3 && words.size() != 9) return std::nullopt;
  auto nr = parse_number(words[0]);
  auto sp = parse_number(words[words.size() - 2]);
  auto pc = parse_number(words.back());
  if (!nr || !sp || !pc) return std::nullopt;
  s.nr = static_cast<int64_t>(*nr);
  s.sp = *sp;
  s.pc = *pc;
  return s;
}

std::optional<TaskSyscall> read_task_syscall(pid_t pid, pid_t tid) {
  auto text = read_text_file(task_file(pid, tid, "syscall"));
  if (!text) return std::nullopt;
  return parse_task_syscall(*text);
}

std::vector<std::string> parse_kernel_stack(const std::string& text) {
  std::vector<std::string> frames;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    // "[<0>] anon_pipe_read+0x366/0x410" (the address shows as 0 unless kptr_restrict allows)
    auto close = line.find("] ");
    std::string name = close == std::string::npos ? line : line.substr(close + 2);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\r')) name.pop_back();
    if (!name.empty()) frames.push_back(name);
  }
  return frames;
}

std::optional<std::vector<std::string>> read_task_kernel_stack(pid_t pid, pid_t tid) {
  auto text = read_text_file(task_file(pid, tid, "stack"));
  if (!text) return std::nullopt;
  return parse_kernel_stack(*text);
}

std::optional<TaskStat> parse_task_stat(const std::string& text) {
  // "tid (comm) S ppid pgrp session tty tpgid flags ..." -- comm may hold
  // spaces and parentheses: the fields start after the last ')'.
  auto close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return std::nullopt;
  std::istringstream in(text.substr(close + 2));
  std::string field;
  TaskStat stat;
  for (int i = 3; i <= 9 && in >> field; ++i) {
    if (i == 3) stat.state = field[0];
    if (i == 9) {
      auto flags = parse_number(field);
      if (!flags) return std::nullopt;
      stat.flags = *flags;
      return stat;
    }
  }
  return std::nullopt;
}

std::optional<TaskStat> read_task_stat(pid_t pid, pid_t tid) {
  auto text = read_text_file(task_file(pid, tid, "stat"));
  if (!text) return std::nullopt;
  return parse_task_stat(*text);
}

std::string read_task_wchan(pid_t pid, pid_t tid) {
  auto text = read_text_file(task_file(pid, tid, "wchan"));
  if (!text) return "";
  while (!text->empty() && (text->back() == '\n' || text->back() == ' ')) text->pop_back();
  return *text == "0" ? "" : *text;
}

const char* task_state_name(char state) {
  switch (state) {
    case 'R': return "running";
    case 'S': return "sleeping";
    case 'D': return "disk sleep";
    case 'T': return "stopped";
    case 't': return "tracing stop";
    case 'Z': return "zombie";
    case 'X': return "dead";
    case 'I': return "idle";
    case 'P': return "parked";
    default: return "unknown";
  }
}

namespace {

ssize_t read_proc_mem(pid_t pid, uint64_t sp, uint8_t* out, size_t bytes) {
  UniqueFd fd(::open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return -1;
  // pread stops at the first unreadable page: read page by page to keep the bytes before it.
  size_t got = 0;
  while (got < bytes) {
    const uint64_t at = sp + got;
    const size_t to_page_end = 4096 - (at & 4095);
    ssize_t n = ::pread(fd.get(), out + got, std::min(bytes - got, to_page_end), static_cast<off_t>(at));
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  return got > 0 ? static_cast<ssize_t>(got) : -1;
}

}  // namespace

std::vector<uint8_t> read_remote_stack(pid_t pid, uint64_t sp, size_t bytes, int* err) {
  std::vector<uint8_t> stack(bytes);
  iovec local{stack.data(), bytes};
  iovec remote{reinterpret_cast<void*>(sp), bytes};
  ssize_t n = bytes ? ::process_vm_readv(pid, &local, 1, &remote, 1, 0) : 0;
  if (n < 0 && errno == EPERM) n = read_proc_mem(pid, sp, stack.data(), bytes);
  if (n < 0) {
    if (err) *err = errno ? errno : EFAULT;
    return {};
  }
  stack.resize(static_cast<size_t>(n));
  if (err) *err = 0;
  return stack;
}

}  // namespace swprof
