#pragma once
// A small profile with known counts for the output tests.

#include "profile/profile.h"

namespace swprof::testing {

struct StackSpec {
  std::vector<CctFrame> frames;  // root first
  uint64_t count;
};

// The node at the end of a path of function names, root first; UINT32_MAX
// when the tree has no such path.
inline uint32_t find_path(const CallTree& t, const std::vector<std::string>& names) {
  uint32_t at = CallTree::kRoot;
  for (const auto& n : names) {
    uint32_t next = UINT32_MAX;
    for (uint32_t c : t.node(at).children)
      if (t.frame(t.node(c).frame).function == n) next = c;
    if (next == UINT32_MAX) return UINT32_MAX;
    at = next;
  }
  return at;
}

inline CctFrame fn(const std::string& name, const std::string& module = "app", uint8_t flags = 0) {
  CctFrame f;
  f.function = name;
  f.module = module;
  f.flags = flags;
  return f;
}

inline void add_stack(CallTree& tree, const std::vector<CctFrame>& frames, uint64_t count, uint64_t weight_each = 1000) {
  std::vector<uint32_t> ids;
  for (const auto& f : frames) ids.push_back(tree.intern(f));
  tree.add(ids, count, count * weight_each);
}

// Adds one sample of `frames` to the tree and to the timeline, as
// build_profile with a timeline does.
inline void add_timed_sample(Profile& p, const std::vector<CctFrame>& frames, uint32_t tid, uint64_t time,
                             uint64_t weight) {
  std::vector<uint32_t> ids;
  for (const auto& f : frames) ids.push_back(p.tree.intern(f));
  p.timeline.push_back({time, weight, tid, p.tree.add(ids, 1, weight)});
}

// main -> a -> b (60), main -> a (10), main -> c -> b (25), main -> rec -> rec -> rec (5):
// 100 samples.
inline Profile sample_profile() {
  Profile p;
  p.source = "fixture.swprof";
  p.header.mode = "record";
  p.header.command = {"./app", "--fast"};
  p.header.event = "cpu-clock";
  p.header.frequency = 999;
  p.header.host = "host";
  p.weight_unit = "nanoseconds";
  p.samples_read = 100;
  p.samples_kept = 100;
  p.first_time = 1'000'000'000;
  p.last_time = 1'100'000'000;
  p.unwind.samples = 100;
  p.unwind.complete = 99;
  p.unwind.frames = 350;
  p.threads[42] = ProfileThread{42, "app", 100};
  CctFrame b = fn("b");
  b.file = "/src/app.c";
  b.line = 12;
  add_stack(p.tree, {fn("main"), fn("a"), b}, 60);
  add_stack(p.tree, {fn("main"), fn("a")}, 10);
  add_stack(p.tree, {fn("main"), fn("c"), b}, 25);
  add_stack(p.tree, {fn("main"), fn("rec"), fn("rec"), fn("rec")}, 5);
  p.tree.sort_children();
  return p;
}

// Adds `count` samples weighing `weight_ns` in all, `off_ns` of it off-CPU.
inline void add_weighed(CallTree& tree, const std::vector<CctFrame>& frames, uint64_t count, uint64_t weight_ns,
                        uint64_t off_ns) {
  std::vector<uint32_t> ids;
  for (const auto& f : frames) ids.push_back(tree.intern(f));
  tree.add(ids, count, weight_ns, off_ns);
}

// A wall-time profile: main -> work (4 on-CPU samples, 4 ms), main -> nap ->
// schedule [kernel] (2 off-CPU samples, 15 ms), main -> wait_pipe -> schedule
// (1 off-CPU sample, 3 ms), main -> spin -> schedule -> [preempted] (1 off-CPU
// sample, 2 ms): 24 ms, 20 of them off-CPU.
inline Profile wall_profile(WeightKind kind = WeightKind::kWall) {
  Profile p = sample_profile();
  p.tree = CallTree();
  p.weight_kind = kind;
  p.weight_unit = "nanoseconds";
  p.header.off_cpu = true;
  p.header.default_weight = weight_kind_name(kind);
  const CctFrame schedule = fn("schedule", "[kernel]", kCctKernel);
  if (kind != WeightKind::kOffCpu) add_weighed(p.tree, {fn("main"), fn("work")}, 4, 4'000'000, 0);
  add_weighed(p.tree, {fn("main"), fn("nap"), schedule}, 2, 15'000'000, 15'000'000);
  add_weighed(p.tree, {fn("main"), fn("wait_pipe"), schedule}, 1, 3'000'000, 3'000'000);
  add_weighed(p.tree, {fn("main"), fn("spin"), schedule, fn("[preempted]", "[kernel]", kCctKernel)}, 1, 2'000'000,
              2'000'000);
  p.samples_read = p.samples_kept = p.tree.total();
  p.threads[42].samples = p.tree.total();
  p.tree.sort_children();
  return p;
}

}  // namespace swprof::testing
