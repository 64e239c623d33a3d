// HeldSamples: the samples a report holds while the kernel's symbols are
// read, bounded by count and by the memory their stacks keep.

#include "profile/held_samples.h"

#include <catch2/catch.hpp>
#include <vector>

using namespace swprof;

namespace {

// A held sample at `time` with `frames` user frames and as many kernel
// addresses and named user frames.
HeldSample sample(uint64_t time, size_t frames, std::string comm = "app") {
  HeldSample h;
  h.unwound.time = time;
  h.unwound.walk.frames.assign(frames, Frame{});
  h.unwound.kernel_ips.assign(frames, 0);
  h.user_symbols.assign(frames, nullptr);
  h.comm = std::move(comm);
  h.weight = time * 10;
  return h;
}

std::vector<uint64_t> released_times(HeldSamples& held) {
  std::vector<uint64_t> times;
  held.release([&](const HeldSample& h) { times.push_back(h.unwound.time); });
  return times;
}

}  // namespace

TEST_CASE("held samples: released oldest first, with what they were held with, then forgotten", "[profile]") {
  HeldSamples held;
  CHECK(held.empty());
  for (uint64_t t = 1; t <= 5; ++t) held.hold(sample(t, 3, "name" + std::to_string(t)));
  CHECK(held.size() == 5);
  CHECK_FALSE(held.full());
  std::vector<std::string> names;
  std::vector<uint64_t> weights;
  held.release([&](const HeldSample& h) {
    names.push_back(h.comm);
    weights.push_back(h.weight);
    CHECK(h.unwound.walk.frames.size() == 3);
  });
  CHECK(names == std::vector<std::string>{"name1", "name2", "name3", "name4", "name5"});
  CHECK(weights == std::vector<uint64_t>{10, 20, 30, 40, 50});
  CHECK(held.empty());
  CHECK(held.bytes() == 0);
  CHECK(released_times(held).empty());
}

TEST_CASE("held samples: full at the count with small stacks", "[profile]") {
  HeldSamples held(100, HeldSamples::kMaxBytes);
  for (uint64_t t = 0; t < 99; ++t) held.hold(sample(t, 8));
  CHECK_FALSE(held.full());
  held.hold(sample(99, 8));
  CHECK(held.full());
  CHECK(held.bytes() < HeldSamples::kMaxBytes);
  CHECK(released_times(held).size() == 100);
  CHECK_FALSE(held.full());
}

TEST_CASE("held samples: deep stacks fill the memory bound long before the count", "[profile]") {
  HeldSamples held;
  const size_t deep = 256;  // the unwinder's default depth
  const size_t one = sample(0, deep).bytes();
  CHECK(one >= deep * (sizeof(Frame) + sizeof(uint64_t) + sizeof(void*)));
  size_t n = 0;
  while (!held.full()) held.hold(sample(n++, deep));
  CHECK(n == (HeldSamples::kMaxBytes + one - 1) / one);
  CHECK(n < HeldSamples::kMaxSamples / 4);
  CHECK(held.bytes() >= HeldSamples::kMaxBytes);
  CHECK(held.bytes() < HeldSamples::kMaxBytes + one);
  const std::vector<uint64_t> times = released_times(held);
  REQUIRE(times.size() == n);
  for (size_t i = 0; i < n; ++i) CHECK(times[i] == i);
}

TEST_CASE("held samples: a long thread name counts, a short one is in the sample itself", "[profile]") {
  CHECK(sample(0, 0, "short").bytes() == sizeof(HeldSample));
  CHECK(sample(0, 0, std::string(200, 'x')).bytes() > sizeof(HeldSample) + 200);
}
