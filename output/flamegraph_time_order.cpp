// The time order of a flame graph page (output/flamegraph_time_order.h).

#include "output/flamegraph_time_order.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "profile/stack_builder.h"

namespace swprof {
namespace {

// One thread's samples, in time order.
struct ThreadSamples {
  std::vector<const TimelineSample*> samples;
};

// How long a sample stands for when nothing cuts it short (0: up to the
// thread's next sample).
struct SampleSpan {
  bool weight_is_time = false;
  uint64_t period_ns = 0;
  uint64_t of(const TimelineSample& s) const { return weight_is_time ? s.weight : period_ns; }
};

// Rounded to the nearest µs.
uint64_t microseconds(uint64_t time_ns, uint64_t origin_ns) {
  const uint64_t ns = time_ns > origin_ns ? time_ns - origin_ns : 0;
  return ns / 1000 + (ns % 1000 >= 500);
}

// Merges a thread's samples into blocks (see the header for the rule).
std::vector<TimeBlock> thread_blocks(const ThreadSamples& thread, const SampleSpan& span,
                                     std::span<const uint32_t> page_node, uint64_t origin_ns) {
  std::vector<TimeBlock> blocks;
  const auto& samples = thread.samples;
  uint64_t previous_end = 0;  // ns; the end of the last block
  uint64_t previous_span = 0;
  // The samples' times, never going back (the timeline is in time order;
  // a profile put together otherwise still gives blocks that do not overlap).
  auto time_of = [&](size_t i, uint64_t at_least) { return std::max(samples[i]->time, at_least); };
  uint64_t time = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const TimelineSample& s = *samples[i];
    time = time_of(i, time);
    const uint32_t node = page_node[s.node];
    const uint64_t next = i + 1 < samples.size() ? time_of(i + 1, time) : UINT64_MAX;
    uint64_t d = span.of(s);
    if (d == 0) d = next != UINT64_MAX ? next - time : previous_span;
    previous_span = d;
    uint64_t end = d > UINT64_MAX - time ? UINT64_MAX : time + d;
    if (next != UINT64_MAX && (end > next || next - end <= d / 2)) end = next;
    if (node == 0) continue;  // no frame on the page
    const uint64_t start_us = microseconds(time, origin_ns);
    const bool touches = !blocks.empty() && previous_end == time;
    if (touches && blocks.back().node == node) {
      blocks.back().end_us = microseconds(end, origin_ns);
      ++blocks.back().samples;
    } else {
      blocks.push_back({node, start_us, microseconds(end, origin_ns), 1});
    }
    previous_end = end;
  }
  return blocks;
}

// The time before which at most `max_blocks` blocks start: the start of the
// first block past the bound, in time order.
uint64_t cut_time(const std::vector<ThreadLane>& lanes, size_t max_blocks) {
  std::vector<uint64_t> starts;
  for (const ThreadLane& lane : lanes)
    for (const TimeBlock& b : lane.blocks) starts.push_back(b.start_us);
  std::nth_element(starts.begin(), starts.begin() + static_cast<ptrdiff_t>(max_blocks), starts.end());
  return starts[max_blocks];
}

void apply_bound(TimeOrder& order, size_t max_blocks) {
  if (order.all_blocks <= max_blocks) return;
  order.cut_us = cut_time(order.lanes, max_blocks);
  order.blocks = 0;
  for (ThreadLane& lane : order.lanes) {
    auto& b = lane.blocks;
    b.erase(std::find_if(b.begin(), b.end(), [&](const TimeBlock& x) { return x.start_us >= order.cut_us; }), b.end());
    order.blocks += b.size();
  }
  std::erase_if(order.lanes, [](const ThreadLane& lane) { return lane.blocks.empty(); });
}

}  // namespace

TimeOrder time_order(const Profile& profile, std::span<const uint32_t> page_node, size_t max_blocks) {
  TimeOrder order;
  if (profile.timeline.empty()) return order;
  std::map<uint32_t, ThreadSamples> threads;
  for (const TimelineSample& s : profile.timeline) {
    threads[s.tid].samples.push_back(&s);
  }
  const uint64_t first = profile.timeline.front().time;
  const uint64_t started = profile.header.start_monotonic_ns;
  const uint64_t origin = started && started <= first ? started : first;
  SampleSpan span;
  span.weight_is_time = profile.weight_unit == "nanoseconds";
  span.period_ns = profile.header.frequency ? 1'000'000'000 / profile.header.frequency : 0;
  for (const auto& [tid, samples] : threads) {
    ThreadLane lane;
    lane.tid = tid;
    const auto named = profile.threads.find(tid);
    lane.name = thread_root_name(ThreadRoots::kThread, named == profile.threads.end() ? "" : named->second.comm, tid);
    lane.blocks = thread_blocks(samples, span, page_node, origin);
    order.all_blocks += lane.blocks.size();
    if (!lane.blocks.empty()) order.lanes.push_back(std::move(lane));
  }
  std::stable_sort(order.lanes.begin(), order.lanes.end(), [](const ThreadLane& a, const ThreadLane& b) {
    return a.blocks.front().start_us < b.blocks.front().start_us;
  });
  order.blocks = order.all_blocks;
  apply_bound(order, max_blocks);
  return order;
}

}  // namespace swprof
