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

bool same(Bytes a, Bytes b) { return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0; }

}  // namespace

Bytes verified_beyond(Bytes copy, Bytes read, Bytes again, size_t overlap) {
  if (overlap == 0 || overlap > copy.size() || read.size() <= overlap) return {};
  const Bytes tail = copy.subspan(copy.size() - overlap);
  if (!same(read.first(overlap), tail) || !same(again, tail)) return {};
  return read.subspan(overlap);
}

StackExtender::StackExtender(uint32_t max_beyond) : max_beyond_(std::min(max_beyond, kMaxStackBeyond)) {}

void StackExtender::extend(SampleView& s) {
  if (!max_beyond_ || !s.stack_truncated || s.off_cpu || s.stack_beyond || s.nregs <= kRegSp || s.stack.empty())
    return;
  const uint64_t started = monotonic_ns();
  ++counts_.tried;
  const size_t overlap = std::min(kStackOverlapBytes, s.stack.size());
  const uint64_t from = s.regs[kRegSp] + s.stack.size() - overlap;
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
  }
  counts_.ns += monotonic_ns() - started;
}

}  // namespace swprof
