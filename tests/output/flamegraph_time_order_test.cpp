// The time order of the flame graph page: samples merged into blocks per
// thread, where a pause splits them, and the bound on blocks. What the page
// draws of it is in flamegraph_browser_test.cpp.
#include "output/flamegraph_time_order.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>

#include "support/profile_fixture.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

constexpr uint64_t kStart = 5'000'000'000;  // the recording's start (monotonic ns)
constexpr uint64_t kMs = 1'000'000;

struct TimedProfile {
  Profile p;
  TimedProfile() {
    p.header.start_monotonic_ns = kStart;
    p.weight_unit = "nanoseconds";
  }
  // One sample of `leaf` (main -> leaf) by `tid` at `at_ms` after the start.
  TimedProfile& at(double at_ms, uint32_t tid, const std::string& leaf, uint64_t weight = kMs) {
    add_timed_sample(p, {fn("main"), fn(leaf)}, tid, kStart + static_cast<uint64_t>(std::llround(at_ms * 1e6)), weight);
    return *this;
  }
  TimedProfile& thread(uint32_t tid, const std::string& comm) {
    p.threads[tid] = ProfileThread{tid, comm, 0};
    return *this;
  }
  // Every tree node stands for itself on the page.
  std::vector<uint32_t> identity() const {
    std::vector<uint32_t> page(p.tree.nodes().size());
    std::iota(page.begin(), page.end(), 0u);
    return page;
  }
  TimeOrder order(size_t max_blocks = kMaxTimeBlocks) {
    order_timeline(p.timeline);
    return time_order(p, identity(), max_blocks);
  }
  uint32_t node(const std::string& leaf) const { return find_path(p.tree, {"main", leaf}); }
};

struct Block {
  std::string leaf;
  uint64_t start_us, end_us;
  uint32_t samples;
  bool operator==(const Block&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Block& b) {
  return out << "{" << b.leaf << " " << b.start_us << "-" << b.end_us << " x" << b.samples << "}";
}

std::vector<Block> blocks(const TimedProfile& t, const ThreadLane& lane) {
  std::vector<Block> out;
  for (const TimeBlock& b : lane.blocks) out.push_back({t.p.tree.frame(t.p.tree.node(b.node).frame).function, b.start_us, b.end_us, b.samples});
  return out;
}

}  // namespace

TEST_CASE("time order: a thread's samples on one stack are one block until the stack changes or a pause comes",
          "[time_order]") {
  TimedProfile t;
  t.thread(7, "worker");
  t.at(0, 7, "a").at(1, 7, "a").at(2, 7, "a");  // a for 3 ms
  t.at(3, 7, "b").at(4, 7, "b");                 // then b
  t.at(10, 7, "b");                              // 5 ms without samples: a new block
  t.at(11.4, 7, "b");                            // 0.4 ms late (timer jitter): touches
  t.at(12.6, 7, "b");                            // 0.2 ms early: touches, the block before ends here
  const TimeOrder order = t.order();
  REQUIRE(order.lanes.size() == 1);
  CHECK(order.lanes[0].name == "worker [7]");
  CHECK(order.lanes[0].tid == 7);
  CHECK(blocks(t, order.lanes[0]) == std::vector<Block>{{"a", 0, 3000, 3}, {"b", 3000, 5000, 2}, {"b", 10000, 13600, 3}});
  CHECK(order.blocks == 3);
  CHECK(order.all_blocks == 3);
  CHECK_FALSE(order.cut());
}

TEST_CASE("time order: a sample lasts its weight in time, cut short by the next, else the period, else up to the next",
          "[time_order]") {
  SECTION("weights in nanoseconds: an off-CPU wait of 5 ms, cut short by the sample 2 ms later") {
    TimedProfile t;
    t.at(0, 1, "wait", 5 * kMs).at(2, 1, "run").at(3, 1, "run", 500'000);
    CHECK(blocks(t, t.order().lanes[0]) == std::vector<Block>{{"wait", 0, 2000, 1}, {"run", 2000, 3500, 2}});
  }
  SECTION("weights in events: the sampling period") {
    TimedProfile t;
    t.p.weight_unit = "events";
    t.p.header.frequency = 4000;
    t.at(0, 1, "a", 123456).at(0.25, 1, "a", 7).at(2, 1, "a", 9);
    CHECK(blocks(t, t.order().lanes[0]) == std::vector<Block>{{"a", 0, 500, 2}, {"a", 2000, 2250, 1}});
  }
  SECTION("neither: up to the next sample, the last as long as the one before") {
    TimedProfile t;
    t.p.weight_unit = "events";
    t.at(0, 1, "a", 5).at(3, 1, "a", 5).at(4, 1, "b", 5);
    CHECK(blocks(t, t.order().lanes[0]) == std::vector<Block>{{"a", 0, 4000, 2}, {"b", 4000, 5000, 1}});
  }
}

TEST_CASE("time order: a lane per thread in the order they start, named by comm and tid", "[time_order]") {
  TimedProfile t;
  t.thread(300, "late").thread(20, "<img src=x>");
  t.at(5, 300, "a").at(1, 20, "b").at(2, 99, "c");  // 99: no name known
  const TimeOrder order = t.order();
  REQUIRE(order.lanes.size() == 3);
  CHECK(order.lanes[0].name == "<img src=x> [20]");
  CHECK(order.lanes[1].name == "[unknown] [99]");
  CHECK(order.lanes[2].name == "late [300]");
  CHECK(order.lanes[2].blocks[0].start_us == 5000);
}

TEST_CASE("time order: samples on stacks left out of the page count for their nearest ancestor on it, none for the root",
          "[time_order]") {
  TimedProfile t;
  t.at(0, 1, "a").at(1, 1, "b").at(2, 1, "c");
  std::vector<uint32_t> page = t.identity();
  const uint32_t main = find_path(t.p.tree, {"main"});
  page[t.node("a")] = main;
  page[t.node("b")] = main;  // a and b left out: their samples are main's
  page[t.node("c")] = 0;     // c stands for the root: no frame on the page
  order_timeline(t.p.timeline);
  const TimeOrder order = time_order(t.p, page);
  CHECK(blocks(t, order.lanes[0]) == std::vector<Block>{{"main", 0, 2000, 2}});
}

TEST_CASE("time order: bounded, the blocks that start before the latest time that keeps at most the bound",
          "[time_order]") {
  TimedProfile t;
  for (int i = 0; i < 10; ++i) t.at(i, 1, i % 2 ? "a" : "b");  // thread 1: 10 blocks, at 0..9 ms
  t.at(3.5, 2, "c").at(20, 3, "d");                             // thread 3 only after the cut
  const TimeOrder order = t.order(5);
  CHECK(order.all_blocks == 12);
  CHECK(order.cut());
  CHECK(order.cut_us == 4000);  // blocks at 0, 1, 2, 3, 3.5 ms are kept: 5
  CHECK(order.blocks == 5);
  REQUIRE(order.lanes.size() == 2);
  CHECK(order.lanes[0].blocks.size() == 4);
  CHECK(order.lanes[1].blocks.size() == 1);
  CHECK(t.order(12).cut() == false);
  CHECK(t.order(0).lanes.empty());
}

TEST_CASE("time order: samples out of time order still give blocks in order, none overlapping", "[time_order]") {
  TimedProfile t;
  t.at(5, 1, "a").at(3, 1, "a").at(4, 1, "b").at(8, 1, "c", UINT64_MAX);  // not sorted; a weight without end
  order_timeline(t.p.timeline);
  std::swap(t.p.timeline[0], t.p.timeline[2]);  // 5, 4, 3, 8 ms
  const TimeOrder order = time_order(t.p, t.identity());
  REQUIRE(order.lanes.size() == 1);
  const auto& b = order.lanes[0].blocks;
  for (size_t i = 0; i < b.size(); ++i) {
    CHECK(b[i].start_us <= b[i].end_us);
    if (i) CHECK(b[i - 1].end_us <= b[i].start_us);
  }
  CHECK(b.back().start_us == 8000);
}

TEST_CASE("time order: none without a timeline", "[time_order]") {
  const Profile p = sample_profile();
  const TimeOrder order = time_order(p, std::vector<uint32_t>(p.tree.nodes().size(), 0));
  CHECK(order.lanes.empty());
  CHECK(order.all_blocks == 0);
}
