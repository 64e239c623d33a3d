#include "sampler/event_set.h"

#include <catch2/catch.hpp>

#include <vector>

using namespace swprof;

TEST_CASE("sysfs CPU lists parse into CPU numbers", "[events]") {
  CHECK(parse_cpu_list("0\n") == std::vector<int>{0});
  CHECK(parse_cpu_list("0-3\n") == std::vector<int>{0, 1, 2, 3});
  CHECK(parse_cpu_list("0-1,4,6-7\n") == std::vector<int>{0, 1, 4, 6, 7});
  CHECK(parse_cpu_list("2,x") == std::vector<int>{2});  // stops at the first malformed entry
  CHECK(parse_cpu_list("").empty());
}

TEST_CASE("the default ring holds 1/16 s of full-size samples, within bounds", "[events]") {
  SamplingOptions o;
  o.frequency = 999;
  o.stack_size = 32768;
  // 999 * (32768 + 512) / 16 = 2,077,830 bytes -> the next power of two.
  CHECK(default_ring_bytes(o) == 2u << 20);
  o.frequency = 10;
  CHECK(default_ring_bytes(o) == 512u << 10);  // the floor
  o.frequency = 100000;
  o.stack_size = 65528;
  CHECK(default_ring_bytes(o) == 32u << 20);  // the ceiling
}

TEST_CASE("the off-CPU ring holds 1/16 s of 20,000 switch-outs a second, between 1 and 16 MiB", "[events]") {
  CHECK(default_offcpu_ring_bytes(8192) == 16u << 20);
  CHECK(default_offcpu_ring_bytes(65528) == 16u << 20);
  CHECK(default_offcpu_ring_bytes(8) == 1u << 20);
  CHECK(default_offcpu_ring_bytes(1024) == 2u << 20);  // 20,000 * 1536 / 16 = 1.9 MB -> next power of two
}
