#include "sampler/stack_extender.h"

#include <time.h>

#include <algorithm>
#include <cstring>
#include <span>

#include "recording/recording_format.h"
#include "sampler/perf_event.h"
#include "sampler/remote_memory.h"

namespace swprof {
namespace {

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

constexpr uint64_t kPage = 4096;
// Threads whose stack top is remembered, at most (then forgotten, all at once).
constexpr size_t kMaxRememberedTops = 65536;

bool same(Bytes a, Bytes b) { return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0; }

}  // namespace

Bytes verified_beyond(Bytes copy, Bytes read, Bytes again, size_t overlap) {
  if (overlap == 0 || overlap > copy.size() || read.size() <= overlap) return {};
  const Bytes tail = copy.subspan(copy.size() - overlap);
  if (!same(read.first(overlap), tail) || !same(again, tail)) return {};
  return read.subspan(overlap);
}

bool copy_ends_at_page(const SampleView& s) {
  return !s.stack_truncated && !s.stack.empty() && s.nregs > kRegSp && (s.regs[kRegSp] + s.stack.size()) % kPage == 0;
}

StackExtender::StackExtender(uint32_t max_beyond) : max_beyond_(std::min(max_beyond, kMaxStackBeyond)) {}

void StackExtender::extend(SampleView& s) {
  if (!max_beyond_ || s.off_cpu || s.stack_beyond || s.nregs <= kRegSp || s.stack.empty()) return;
  const uint64_t copy_end = s.regs[kRegSp] + s.stack.size();
  const bool at_page = copy_ends_at_page(s);
  if (!s.stack_truncated && !at_page) return;
  const auto top = tops_.find(s.tid);
  if (at_page && top != tops_.end() && top->second == copy_end) return;
  const uint64_t started = monotonic_ns();
  ++counts_.tried;
  counts_.at_page += at_page;
  last_sample_ns_ = s.time;
  const size_t overlap = std::min(kStackOverlapBytes, s.stack.size());
  const uint64_t from = copy_end - overlap;
  read_.resize(overlap + max_beyond_);
  again_.resize(overlap);
  const RemoteRead first = read_remote_memory(static_cast<pid_t>(s.pid), from, std::span(read_));
  const RemoteRead second = first.bytes > overlap ? read_remote_memory(static_cast<pid_t>(s.pid), from, std::span(again_))
                                                  : RemoteRead{};
  Bytes beyond = verified_beyond(s.stack, Bytes(read_.data(), first.bytes), Bytes(again_.data(), second.bytes),
                                 overlap);
  if (!beyond.empty()) {
    stack_.assign(s.stack.begin(), s.stack.end());
    stack_.insert(stack_.end(), beyond.begin(), beyond.end());
    s.stack = Bytes(stack_.data(), stack_.size());
    s.stack_beyond = static_cast<uint32_t>(beyond.size());
    s.stack_owner.reset();
    ++counts_.kept;
    counts_.bytes += beyond.size();
  } else if (first.bytes > overlap) {
    ++counts_.changed;
  } else {
    ++counts_.unread;
    if (first.bytes == overlap) {  // the overlap read, nothing past it: the stack's top
      if (tops_.size() >= kMaxRememberedTops) tops_.clear();
      tops_[s.tid] = copy_end;
    }
  }
  counts_.ns += monotonic_ns() - started;
}

}  // namespace swprof
