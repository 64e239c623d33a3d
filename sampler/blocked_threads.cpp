#include "sampler/blocked_threads.h"

#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "sampler/perf_event.h"
#include "recording/recording_format.h"
#include "sampler/proc.h"
#include "sampler/task_files.h"

namespace swprof {
namespace {

std::optional<uint64_t> parse_hex(const std::string& word) {
  if (word.empty()) return std::nullopt;
  char* end = nullptr;
  const uint64_t v = std::strtoull(word.c_str(), &end, 16);
  if (end != word.c_str() + word.size()) return std::nullopt;
  return v;
}

// The kernel chain of a thread as u64 bytes, innermost first; empty when unknown.
std::vector<uint8_t> kernel_chain_bytes(const std::vector<uint64_t>& addresses) {
  std::vector<uint8_t> out(addresses.size() * 8);
  if (!addresses.empty()) std::memcpy(out.data(), addresses.data(), out.size());
  return out;
}

}  // namespace

std::optional<TaskSyscall> parse_task_syscall(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty() || words[0] == "running") return std::nullopt;
  TaskSyscall sc;
  char* end = nullptr;
  sc.nr = std::strtoll(words[0].c_str(), &end, 10);
  if (end != words[0].c_str() + words[0].size()) return std::nullopt;
  const size_t expected = sc.nr < 0 ? 3 : 9;
  if (words.size() != expected) return std::nullopt;
  auto sp = parse_hex(words[expected - 2]);
  auto pc = parse_hex(words[expected - 1]);
  if (!sp || !pc) return std::nullopt;
  sc.sp = *sp;
  sc.pc = *pc;
  return sc;
}

std::vector<KernelFrameName> parse_task_stack(std::string_view text) {
  std::vector<KernelFrameName> frames;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    const auto space = line.find("] ");
    const auto plus = line.rfind('+');
    const auto slash = line.rfind('/');
    if (space == std::string::npos || plus == std::string::npos || plus < space || slash < plus) continue;
    auto offset = parse_hex(line.substr(plus + 1 + 2, slash - plus - 1 - 2));
    if (line.compare(plus + 1, 2, "0x") != 0 || !offset) continue;
    frames.push_back({line.substr(space + 2, plus - space - 2), *offset});
  }
  return frames;
}

std::vector<uint64_t> resolve_kernel_frames(const std::vector<KernelFrameName>& frames, std::string_view kallsyms) {
  std::set<std::string> wanted;
  for (const auto& f : frames) wanted.insert(f.symbol);
  std::map<std::string, uint64_t> found;
  std::istringstream in{std::string(kallsyms)};
  for (std::string line; std::getline(in, line) && found.size() < wanted.size();) {
    // "ffffffff8220043e t do_nanosleep [module]"
    const auto a = line.find(' ');
    const auto b = a == std::string::npos ? a : line.find(' ', a + 1);
    if (b == std::string::npos) continue;
    const auto c = line.find_first_of(" \t", b + 1);
    std::string name = line.substr(b + 1, c == std::string::npos ? std::string::npos : c - b - 1);
    if (!wanted.count(name) || found.count(name)) continue;
    auto address = parse_hex(line.substr(0, a));
    if (!address || *address == 0) return {};
    found[name] = *address;
  }
  std::vector<uint64_t> out;
  for (const auto& f : frames) {
    auto it = found.find(f.symbol);
    if (it == found.end()) return {};
    out.push_back(it->second + f.offset);
  }
  return out;
}

std::vector<uint8_t> read_remote_memory(pid_t pid, uint64_t addr, size_t len) {
  constexpr uint64_t kPage = 4096;
  std::vector<uint8_t> out(len);
  std::vector<iovec> remote;
  for (uint64_t at = addr; at < addr + len;) {
    const uint64_t next = std::min<uint64_t>((at / kPage + 1) * kPage, addr + len);
    remote.push_back({reinterpret_cast<void*>(at), next - at});
    at = next;
  }
  size_t done = 0;
  // At most IOV_MAX (1024) pieces per call; a stack copy is at most 16 pages.
  iovec local{out.data(), out.size()};
  const ssize_t n = process_vm_readv(pid, &local, 1, remote.data(), remote.size(), 0);
  if (n > 0) done = static_cast<size_t>(n);
  out.resize(done);
  return out;
}

SampleView BlockedThread::sample() const {
  SampleView s;
  s.time = time;
  s.pid = pid;
  s.tid = tid;
  s.off_cpu = true;
  s.in_kernel = true;
  s.ip = syscall.pc;
  s.abi = PERF_SAMPLE_REGS_ABI_64;
  s.nregs = static_cast<uint32_t>(__builtin_popcountll(kX86_64RegsMask));
  s.regs[kRegIp] = syscall.pc;
  s.regs[kRegSp] = syscall.sp;
  s.ip_sp_only = true;  // the syscall line gives no other register
  s.kernel_chain = Bytes(kernel_chain.data(), kernel_chain.size());
  s.stack = Bytes(stack.data(), stack.size());
  return s;
}

SwitchRecord BlockedThread::switch_out() const {
  SwitchRecord sw;
  sw.time = time;
  sw.pid = pid;
  sw.tid = tid;
  sw.out = true;
  sw.synthesized = true;
  return sw;
}

std::vector<BlockedThread> find_blocked_threads(pid_t pid, uint32_t stack_size) {
  std::vector<BlockedThread> blocked;
  std::optional<std::string> kallsyms;
  for (pid_t tid : list_threads(pid)) {
    BlockedThread t;
    t.time = monotonic_now_ns();
    auto sc = read_task_syscall(pid, tid);
    if (!sc || sc->nr < 0 || sc->sp == 0) continue;
    t.pid = static_cast<uint32_t>(pid);
    t.tid = static_cast<uint32_t>(tid);
    t.syscall = *sc;
    t.stack = read_remote_memory(pid, sc->sp, stack_size);
    if (t.stack.empty()) continue;
    if (auto stack = read_text_file(task_file(pid, tid, "stack"))) {
      auto frames = parse_task_stack(*stack);
      if (!frames.empty() && !kallsyms) kallsyms = read_text_file("/proc/kallsyms").value_or("");
      if (!frames.empty()) t.kernel_chain = kernel_chain_bytes(resolve_kernel_frames(frames, *kallsyms));
    }
    blocked.push_back(std::move(t));
  }
  return blocked;
}

}  // namespace swprof
