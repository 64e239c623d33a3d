#include "sampler/offcpu_thinner.h"

#include <algorithm>
#include <cstring>

#include "sampler/perf_event.h"

namespace swprof {
namespace {

// A 64-bit mix per 8-byte word (the tail zero-padded): cheap enough to hash
// a few hundred bytes per switch-out.
uint64_t mix(uint64_t h, uint64_t word) {
  h ^= word + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

uint64_t hash_bytes(uint64_t h, Bytes bytes) {
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + i, 8);
    h = mix(h, word);
  }
  uint64_t tail = 0;
  std::memcpy(&tail, bytes.data() + i, bytes.size() - i);
  return mix(h, tail ^ (static_cast<uint64_t>(bytes.size()) << 56));
}

}  // namespace

uint64_t OffCpuThinner::signature(const SampleView& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  if (s.nregs > kRegIp) h = mix(mix(h, s.regs[kRegIp]), s.regs[kRegSp]);
  h = hash_bytes(h, s.kernel_chain);
  return hash_bytes(h, s.stack.first(std::min(s.stack.size(), kSignatureStackBytes)));
}

void OffCpuThinner::add_sample(Bytes raw, const SampleView& view) {
  Thread& t = threads_[view.tid];
  if (t.holding) decide(view.tid, t, Bytes(t.held.data(), t.held.size()), false);  // its switch-in was lost
  t.pid = view.pid;
  t.held_time = view.time;
  t.held_signature = signature(view);
  if (t.last_switch_in > view.time) {
    // The switch-in came first, from another CPU's ring.
    decide(view.tid, t, raw, t.last_switch_in - view.time < min_ns_);
    return;
  }
  t.held.assign(raw.begin(), raw.end());
  t.holding = true;
}

void OffCpuThinner::add_switch(const SwitchRecord& sw) {
  if (sw.out) return;
  Thread& t = threads_[sw.tid];
  t.last_switch_in = std::max(t.last_switch_in, sw.time);
  if (t.holding && sw.time > t.held_time)
    decide(sw.tid, t, Bytes(t.held.data(), t.held.size()), sw.time - t.held_time < min_ns_);
}

void OffCpuThinner::release_waits_longer_than_min(uint64_t now_ns) {
  for (auto& [tid, t] : threads_)
    if (t.holding && now_ns >= t.held_time + min_ns_) decide(tid, t, Bytes(t.held.data(), t.held.size()), false);
}

void OffCpuThinner::flush() {
  for (auto& [tid, t] : threads_)
    if (t.holding) decide(tid, t, Bytes(t.held.data(), t.held.size()), false);
}

void OffCpuThinner::decide(uint32_t tid, Thread& t, Bytes raw, bool short_wait) {
  t.holding = false;
  if (short_wait) {
    if (const Recent* same = find_recent(t, t.held_signature)) {
      output_.off_cpu_repeat(OffCpuRepeatRecord{t.held_time, t.pid, tid, same->time});
      return;
    }
  }
  remember(t, t.held_signature, t.held_time);
  output_.off_cpu_sample(raw);
}

const OffCpuThinner::Recent* OffCpuThinner::find_recent(const Thread& t, uint64_t signature) const {
  for (size_t i = 0; i < t.recent_count; ++i)
    if (t.recent[i].signature == signature) return &t.recent[i];
  return nullptr;
}

void OffCpuThinner::remember(Thread& t, uint64_t signature, uint64_t time) {
  for (size_t i = 0; i < t.recent_count; ++i) {
    if (t.recent[i].signature == signature) {
      t.recent[i].time = time;  // the newest sample with this stack is the reference
      return;
    }
  }
  t.recent[t.recent_next] = Recent{signature, time};
  t.recent_next = (t.recent_next + 1) % kRecent;
  t.recent_count = std::min(t.recent_count + 1, kRecent);
}

}  // namespace swprof
