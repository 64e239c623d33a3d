#include "sampler/task_files.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "sampler/proc.h"

namespace swprof {
std::string task_file(pid_t pid, pid_t tid, const char* name) {
  return "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/" + name;
}

namespace {

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

std::optional<TaskSyscall> read_task_syscall(pid_t pid, pid_t tid) {
  auto text = read_text_file(task_file(pid, tid, "syscall"));
  if (!text) return std::nullopt;
  return parse_task_syscall(*text);
}

std::optional<std::vector<std::string>> read_task_kernel_stack(pid_t pid, pid_t tid) {
  auto text = read_text_file(task_file(pid, tid, "stack"));
  if (!text) return std::nullopt;
  std::vector<std::string> frames;
  char offset[24];
  for (const KernelFrameName& f : parse_task_stack(*text)) {
    snprintf(offset, sizeof offset, "+0x%llx", static_cast<unsigned long long>(f.offset));
    frames.push_back(f.symbol + offset);
  }
  return frames;
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

}  // namespace swprof
