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

}  // namespace

void mark_changed_words(Bytes tail, Bytes read, Bytes again, std::vector<uint8_t>& out) {
  const size_t words = tail.size() / 8;
  out.assign((words + 7) / 8, 0);
  for (size_t i = 0; i < words; ++i) {
    const size_t at = tail.size() - 8 * (i + 1);  // word i counts down from the copy's end
    const bool same = at + 8 <= read.size() && at + 8 <= again.size() &&
                      std::memcmp(read.data() + at, tail.data() + at, 8) == 0 &&
                      std::memcmp(again.data() + at, tail.data() + at, 8) == 0;
    if (!same) out[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  }
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
  // A copy under 64 bytes has no window to compare: a --stack-size below it.
  const size_t window = std::min<size_t>(kMaxStackReread, s.stack.size() / 64 * 64);
  if (window == 0) return;
  const uint64_t started = monotonic_ns();
  ++counts_.tried;
  counts_.at_page += at_page;
  last_sample_ns_ = s.time;
  const uint64_t from = copy_end - window;
  read_.resize(window + max_beyond_);
  again_.resize(window);
  const RemoteRead first = read_remote_memory(static_cast<pid_t>(s.pid), from, std::span(read_));
  const RemoteRead second = first.bytes > window ? read_remote_memory(static_cast<pid_t>(s.pid), from, std::span(again_))
                                                 : RemoteRead{};
  if (first.bytes > window) {
    const Bytes beyond(read_.data() + window, first.bytes - window);
    mark_changed_words(s.stack.last(window), Bytes(read_.data(), window), Bytes(again_.data(), second.bytes), changed_);
    stack_.assign(s.stack.begin(), s.stack.end());
    stack_.insert(stack_.end(), beyond.begin(), beyond.end());
    s.stack = Bytes(stack_.data(), stack_.size());
    s.stack_beyond = static_cast<uint32_t>(beyond.size());
    s.beyond_changed = Bytes(changed_.data(), changed_.size());
    s.beyond_delay_us = static_cast<uint32_t>(
        std::min<uint64_t>(started > s.time ? (started - s.time) / 1000 : 0, kMaxStackReadDelayUs));
    s.stack_owner.reset();
    ++counts_.kept;
    counts_.changed += std::any_of(changed_.begin(), changed_.end(), [](uint8_t b) { return b != 0; });
    counts_.bytes += beyond.size();
  } else {
    ++counts_.unread;
    if (first.bytes == window) {  // the window read, nothing past it: the stack's top
      if (tops_.size() >= kMaxRememberedTops) tops_.clear();
      tops_[s.tid] = copy_end;
    }
  }
  counts_.ns += monotonic_ns() - started;
}

}  // namespace swprof
