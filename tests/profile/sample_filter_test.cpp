#include "profile/sample_filter.h"

#include <catch2/catch.hpp>

using namespace swprof;

namespace {
constexpr uint64_t kStart = 10'000'000'000;
uint64_t at(double seconds) { return kStart + static_cast<uint64_t>(seconds * 1e9); }
}  // namespace

TEST_CASE("sample filter: no criteria keep every sample", "[sample_filter]") {
  const ProfileFilter none;
  const SampleFilter filter(none, kStart);
  CHECK(filter.keep(at(0), 1, ""));
  CHECK(filter.keep(at(1000), 99, "x"));
  CHECK(filter.keep(kStart - 5, 1, "x"));
}

TEST_CASE("sample filter: the time window counts from the start, from inclusive and to exclusive",
          "[sample_filter]") {
  ProfileFilter criteria;
  criteria.from_seconds = 1;
  criteria.to_seconds = 2;
  const SampleFilter filter(criteria, kStart);
  CHECK_FALSE(filter.in_window(at(0.5)));
  CHECK(filter.in_window(at(1)));
  CHECK(filter.in_window(at(1.999)));
  CHECK_FALSE(filter.in_window(at(2)));
  // Before the start counts as 0 s.
  ProfileFilter from_zero;
  from_zero.from_seconds = 0;
  CHECK(SampleFilter(from_zero, kStart).in_window(kStart - 1000));
  CHECK_FALSE(filter.in_window(kStart - 1000));
}

TEST_CASE("sample filter: threads by id and by name", "[sample_filter]") {
  ProfileFilter criteria;
  criteria.tids = {5, 7};
  criteria.comms = {"worker"};
  const SampleFilter filter(criteria, kStart);
  CHECK(filter.keep(at(0), 5, "worker"));
  CHECK(filter.keep(at(0), 7, "worker"));
  CHECK_FALSE(filter.keep(at(0), 6, "worker"));
  CHECK_FALSE(filter.keep(at(0), 5, "main"));
  CHECK_FALSE(filter.keeps_name(""));
}
