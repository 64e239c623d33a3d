#include "sampler/blocked_threads.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <sstream>

#include "sampler/perf_event.h"
#include "recording/recording_format.h"
#include "sampler/proc.h"
#include "sampler/remote_memory.h"
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

KernelSymbolAddresses kernel_symbol_addresses(std::string_view kallsyms,
                                              const std::unordered_set<std::string>& names) {
  KernelSymbolAddresses found;
  while (!kallsyms.empty() && found.size() < names.size()) {
    // "ffffffff8220043e t do_nanosleep\t[module]"
    const size_t nl = kallsyms.find('\n');
    const std::string_view line = kallsyms.substr(0, nl);
    kallsyms.remove_prefix(nl == std::string_view::npos ? kallsyms.size() : nl + 1);
    const size_t a = line.find(' ');
    const size_t b = a == std::string_view::npos ? a : line.find(' ', a + 1);
    if (b == std::string_view::npos) continue;
    const size_t c = line.find_first_of(" \t", b + 1);
    const std::string name(line.substr(b + 1, c == std::string_view::npos ? std::string_view::npos : c - b - 1));
    if (!names.count(name) || found.count(name)) continue;
    uint64_t address = 0;
    const auto [end, ec] = std::from_chars(line.data(), line.data() + a, address, 16);
    if (ec != std::errc() || end != line.data() + a || address == 0) return {};
    found.emplace(name, address);
  }
  return found;
}

std::vector<uint64_t> resolve_kernel_frames(const std::vector<KernelFrameName>& frames,
                                            const KernelSymbolAddresses& addresses) {
  std::vector<uint64_t> out;
  for (const auto& f : frames) {
    auto it = addresses.find(f.symbol);
    if (it == addresses.end()) return {};
    out.push_back(it->second + f.offset);
  }
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

std::optional<std::string> BlockedThreadSearch::read_proc_kallsyms() {
  return read_text_file("/proc/kallsyms", kMaxKallsymsBytes);
}

namespace {

// A thread off the CPU, with the names of its kernel frames (resolved once
// every thread has been read).
struct FoundThread {
  BlockedThread thread;
  std::vector<KernelFrameName> kernel_frames;
};

std::optional<FoundThread> read_blocked_thread(pid_t pid, pid_t tid, uint32_t stack_size) {
  FoundThread found;
  BlockedThread& t = found.thread;
  t.time = monotonic_now_ns();
  auto sc = read_task_syscall(pid, tid);
  if (!sc || sc->sp == 0) return std::nullopt;
  t.pid = static_cast<uint32_t>(pid);
  t.tid = static_cast<uint32_t>(tid);
  t.syscall = *sc;
  t.stack = read_remote_memory(pid, sc->sp, stack_size);
  if (t.stack.empty()) return std::nullopt;
  if (auto stack = read_text_file(task_file(pid, tid, "stack"))) found.kernel_frames = parse_task_stack(*stack);
  return found;
}

// The kernel chains of `found`, from one read of kallsyms for all of them.
void resolve_kernel_chains(std::vector<FoundThread>& found, const BlockedThreadSearch& search) {
  std::unordered_set<std::string> names;
  for (const FoundThread& f : found)
    for (const KernelFrameName& frame : f.kernel_frames) names.insert(frame.symbol);
  if (names.empty()) return;
  const std::optional<std::string> kallsyms = search.read_kallsyms();
  if (!kallsyms) return;
  const KernelSymbolAddresses addresses = kernel_symbol_addresses(*kallsyms, names);
  for (FoundThread& f : found)
    f.thread.kernel_chain = kernel_chain_bytes(resolve_kernel_frames(f.kernel_frames, addresses));
}

}  // namespace

std::vector<BlockedThread> find_blocked_threads(pid_t pid, const BlockedThreadSearch& search) {
  std::vector<FoundThread> found;
  for (pid_t tid : list_threads(pid)) {
    if (search.stop_requested()) break;
    if (auto f = read_blocked_thread(pid, tid, search.stack_size)) found.push_back(std::move(*f));
  }
  resolve_kernel_chains(found, search);
  std::vector<BlockedThread> blocked;
  blocked.reserve(found.size());
  for (FoundThread& f : found) blocked.push_back(std::move(f.thread));
  return blocked;
}

}  // namespace swprof
