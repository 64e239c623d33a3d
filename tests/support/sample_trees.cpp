#include "support/sample_trees.h"

#include <algorithm>
#include <random>
#include <unordered_map>

namespace swprof::testing {

void add_stack(CallTree& tree, const std::vector<CctFrame>& stack, uint64_t count) {
  std::vector<uint32_t> ids;
  for (const CctFrame& f : stack) ids.push_back(tree.intern(f));
  tree.add(ids, count, count * 1000000);
}

void add_timed_stack(Profile& profile, const std::vector<CctFrame>& stack, uint32_t tid, uint64_t time, uint64_t weight) {
  std::vector<uint32_t> ids;
  for (const CctFrame& f : stack) ids.push_back(profile.tree.intern(f));
  profile.timeline.push_back({time, weight, tid, profile.tree.add(ids, 1, weight)});
}

CallTree small_tree() {
  const CctFrame main_f{"main", "prog", "src/main.c", 10, 0};
  const CctFrame parse{"parse_input", "prog", "src/parse.c", 42, 0};
  const CctFrame compute{"compute", "prog", "src/compute.c", 7, 0};
  const CctFrame helper{"helper", "libhelper.so", "helper.c", 3, 0};
  const CctFrame memcpy_f{"memcpy", "libc.so.6", "", 0, 0};
  const CctFrame img{kImgName, "prog", "src/<evil>.c", 1, 0};
  const CctFrame script{kScriptName, "libevil.so", "", 0, 0};
  const CctFrame syscall{"do_syscall_64", "[kernel]", "", 0, kCctKernel};
  const CctFrame inlined{"inlined_step", "prog", "src/main.c", 20, kCctInline};
  const CctFrame guessed{"guessed_caller", "prog", "", 0, kCctGuess};
  const CctFrame jit{"Interpreter::run", "[jit]", "", 0, 0};
  const CctFrame thread{"worker 4242", "", "", 0, kCctThread};
  CallTree tree;
  add_stack(tree, {main_f, parse, memcpy_f}, 30);
  add_stack(tree, {main_f, compute, helper, compute, memcpy_f}, 25);
  add_stack(tree, {main_f, compute}, 20);
  add_stack(tree, {main_f, compute, helper}, 15);
  add_stack(tree, {main_f, img}, 40);
  add_stack(tree, {main_f, script}, 35);
  add_stack(tree, {main_f, parse, syscall}, 10);
  add_stack(tree, {main_f, inlined}, 12);
  add_stack(tree, {main_f, guessed}, 8);
  add_stack(tree, {thread, jit}, 5);
  return tree;
}

CallTree synthetic_tree(uint32_t frames, uint32_t seed) {
  std::mt19937 rng(seed);
  const auto below = [&rng](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  static const char* kWords[] = {"parse", "render", "compute", "update", "flush", "encode", "decode", "visit",
                                 "lookup", "insert", "resolve", "schedule", "dispatch", "handle", "merge", "scan"};
  CallTree tree;
  std::vector<uint32_t> nodes{CallTree::kRoot};
  std::vector<uint32_t> path;
  for (uint32_t i = 0; i < frames; ++i) {
    CctFrame f;
    f.function = "app" + std::to_string(below(40)) + "::" + kWords[below(16)] + "_unit" + std::to_string(below(500)) +
                 "::" + kWords[below(16)] + "_" + std::to_string(i) + "(int, std::string const&)";
    const uint32_t m = below(30);
    f.module = m == 0 ? "[kernel]" : m == 1 ? "[jit]" : "libmodule" + std::to_string(m) + ".so";
    f.flags = m == 0 ? kCctKernel : (below(10) == 0 ? kCctInline : 0) | (below(50) == 0 ? kCctGuess : 0);
    f.file = "src/module" + std::to_string(m) + "/file" + std::to_string(below(200)) + ".cpp";
    f.line = 1 + below(3000);
    // Mostly extend one of the latest nodes (depth), sometimes branch
    // anywhere, and now and then add a leaf under one of a few dispatchers
    // (wide fan-outs of small frames, like an interpreter's).
    const uint32_t size = static_cast<uint32_t>(nodes.size());
    const uint32_t pick = below(100);
    uint32_t parent;
    if (size > 1000 && pick < 12)
      parent = nodes[100 + 200 * below(5)];
    else if (pick < 80)
      parent = nodes[size - 1 - below(std::min<uint32_t>(48, size))];
    else
      parent = nodes[below(size)];
    nodes.push_back(tree.child(parent, tree.intern(f)));
  }
  for (uint32_t id = 1; id < tree.nodes().size(); ++id) {
    const uint64_t count = below(200) == 0 ? 2000 + below(20000) : 1 + below(12);
    tree.add(tree.path(id), count, count * 1000000);
  }
  return tree;
}

Profile synthetic_timed_profile(uint32_t samples, uint32_t threads, uint32_t seed) {
  const CallTree shape = synthetic_tree(std::clamp<uint32_t>(samples / 10, 1000, 30000), seed);
  std::mt19937 rng(seed + 1);
  const auto below = [&rng](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  Profile p;
  p.source = "synthetic.swprof";
  p.header.command = {"./synthetic"};
  p.header.event = "cpu-clock";
  p.header.frequency = 1000;
  p.header.start_monotonic_ns = 1'000'000'000;
  p.weight_unit = "nanoseconds";
  constexpr uint64_t kPeriod = 1'000'000;
  std::unordered_map<uint32_t, uint32_t> leaf_of;  // shape node -> node of p.tree
  auto leaf = [&](uint32_t shape_node) {
    auto [it, added] = leaf_of.try_emplace(shape_node, 0);
    if (added) {
      std::vector<uint32_t> ids;
      for (uint32_t f : shape.path(shape_node)) ids.push_back(p.tree.intern(shape.frame(f)));
      it->second = p.tree.node_at(ids);
    }
    return it->second;
  };
  const uint32_t nodes = static_cast<uint32_t>(shape.nodes().size());
  for (uint32_t t = 0; t < threads; ++t) {
    const uint32_t tid = 1001 + t;
    const uint32_t count = samples / threads + (t < samples % threads ? 1 : 0);
    uint64_t time = p.header.start_monotonic_ns + t * 100'000;
    uint32_t node = 1, run = 0;
    for (uint32_t i = 0; i < count; ++i, time += kPeriod) {
      if (below(60) == 0) time += (5 + below(16)) * kPeriod;
      if (run == 0) {
        node = 1 + below(nodes - 1);
        run = 1 + below(8);
      }
      --run;
      const uint32_t at = leaf(node);
      p.tree.add_self(at, 1, kPeriod);
      p.timeline.push_back({time, kPeriod, tid, at});
    }
    p.threads[tid] = ProfileThread{1001, "worker-" + std::to_string(t), count};
  }
  p.tree.sort_children();
  order_timeline(p.timeline);
  p.samples_read = p.samples_kept = samples;
  p.first_time = p.timeline.empty() ? 0 : p.timeline.front().time;
  p.last_time = p.timeline.empty() ? 0 : p.timeline.back().time;
  return p;
}

uint64_t matched_samples(const CallTree& tree, const std::function<bool(const std::string&)>& match) {
  uint64_t sum = 0;
  std::vector<uint32_t> stack{CallTree::kRoot};
  while (!stack.empty()) {
    const uint32_t id = stack.back();
    stack.pop_back();
    const CctNode& n = tree.node(id);
    if (id != CallTree::kRoot && match(tree.frame(n.frame).function)) {
      sum += n.total;
      continue;
    }
    for (uint32_t c : n.children) stack.push_back(c);
  }
  return sum;
}

}  // namespace swprof::testing
