#include "profile/timeline.h"

#include <catch2/catch.hpp>

using namespace swprof;

namespace {

std::vector<uint64_t> times(const std::vector<TimelineSample>& samples) {
  std::vector<uint64_t> out;
  for (const auto& s : samples) out.push_back(s.time);
  return out;
}

std::vector<uint32_t> nodes(const std::vector<TimelineSample>& samples) {
  std::vector<uint32_t> out;
  for (const auto& s : samples) out.push_back(s.node);
  return out;
}

}  // namespace

TEST_CASE("timeline: samples out of time order are sorted, equal times keep their order") {
  std::vector<TimelineSample> samples{{500, 1, 7, 1}, {300, 1, 8, 2}, {300, 1, 7, 3}, {100, 1, 8, 4}, {500, 1, 7, 5}};
  order_timeline(samples);
  CHECK(times(samples) == std::vector<uint64_t>{100, 300, 300, 500, 500});
  CHECK(nodes(samples) == std::vector<uint32_t>{4, 2, 3, 1, 5});
}

TEST_CASE("timeline: samples in time order stay as they are") {
  std::vector<TimelineSample> samples{{100, 1, 7, 3}, {100, 1, 8, 1}, {200, 1, 7, 2}};
  order_timeline(samples);
  CHECK(nodes(samples) == std::vector<uint32_t>{3, 1, 2});
  std::vector<TimelineSample> none;
  order_timeline(none);
  CHECK(none.empty());
}
