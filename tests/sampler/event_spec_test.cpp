#include "sampler/event_spec.h"

#include <linux/perf_event.h>

#include <catch2/catch.hpp>

#include "common/error.h"

using namespace swprof;

namespace {
SamplingOptions make(std::optional<uint64_t> f, std::optional<uint64_t> c, uint64_t stack, uint64_t buffer = 0,
                     const std::string& event = "cpu-clock") {
  return make_sampling_options(event, f, c, stack, buffer, true, std::nullopt);
}
}  // namespace

TEST_CASE("events are looked up by name and alias", "[event_spec]") {
  CHECK(parse_event("cpu-clock").type == PERF_TYPE_SOFTWARE);
  CHECK(parse_event("cpu-clock").config == PERF_COUNT_SW_CPU_CLOCK);
  CHECK(parse_event("faults").name == "page-faults");
  CHECK(parse_event("cycles").hardware);
  CHECK_FALSE(parse_event("task-clock").hardware);
  CHECK_THROWS_WITH(parse_event("bogus"), Catch::Contains("unknown event 'bogus'") && Catch::Contains("cpu-clock"));
}

TEST_CASE("sampling defaults", "[event_spec]") {
  auto o = make(std::nullopt, std::nullopt, kDefaultStackSize);
  CHECK(o.frequency == 999);
  CHECK(o.period == 0);
  CHECK(o.stack_size == 32768);
  CHECK(o.event.name == "cpu-clock");
}

TEST_CASE("invalid -F, -c and --stack-size are rejected", "[event_spec]") {
  CHECK_THROWS_AS(make(0, std::nullopt, 32768), Error);
  CHECK_THROWS_WITH(make(100, 1000, 32768), Catch::Contains("cannot be used together"));
  CHECK_THROWS_WITH(make(std::nullopt, 0, 32768), Catch::Contains("-c 0"));
  CHECK_THROWS_WITH(make(99, std::nullopt, 65536), Catch::Contains("65528"));
  CHECK_THROWS_WITH(make(99, std::nullopt, 100), Catch::Contains("multiple of 8"));
  CHECK_THROWS_AS(make(99, std::nullopt, 0), Error);
  CHECK_THROWS_WITH(make(50000000, std::nullopt, 8192), Catch::Contains("-F 50000000"));
  CHECK(make(99, std::nullopt, 65528).stack_size == 65528);
  CHECK(make(std::nullopt, 12345, 8).period == 12345);
  CHECK(make(std::nullopt, 12345, 8).frequency == 0);
}

TEST_CASE("the ring buffer size must be a power of two", "[event_spec]") {
  CHECK(make(99, std::nullopt, 8192, 1 << 20).buffer_bytes == (1u << 20));
  CHECK_THROWS_WITH(make(99, std::nullopt, 8192, 3 << 20), Catch::Contains("power of two"));
  CHECK_THROWS_AS(make(99, std::nullopt, 8192, 4096), Error);
}

TEST_CASE("byte sizes with units", "[event_spec]") {
  CHECK(parse_byte_size("4096", "--x") == 4096);
  CHECK(parse_byte_size("512K", "--x") == 512u * 1024);
  CHECK(parse_byte_size("16M", "--x") == 16u << 20);
  CHECK(parse_byte_size("1G", "--x") == 1u << 30);
  CHECK_THROWS_WITH(parse_byte_size("12Q", "--x"), Catch::Contains("unknown unit"));
  CHECK_THROWS_AS(parse_byte_size("lots", "--x"), Error);
  // Neither wraps around: a size that would has no meaning (prune --max-size 0 empties the cache).
  CHECK_THROWS_WITH(parse_byte_size("17179869184G", "--x"), Catch::Contains("too large"));
  CHECK_THROWS_WITH(parse_byte_size("99999999999999999999", "--x"), Catch::Contains("expected a size"));
  CHECK_THROWS_WITH(parse_byte_size("-5", "--x"), Catch::Contains("expected a size"));
  CHECK_THROWS_WITH(parse_byte_size(" 5", "--x"), Catch::Contains("expected a size"));
  CHECK(parse_byte_size("17179869183G", "--x") == 17179869183ull << 30);
}

TEST_CASE("the ring buffer must hold four of the largest samples", "[event_spec]") {
  // 20 user registers, 127 kernel frames + 8 context markers, the stack copy.
  CHECK(max_sample_record_bytes(32768) == 8 + 40 + 1088 + 168 + 8 + 32768 + 8);
  CHECK(max_sample_record_bytes(65528) == 65535);  // a record's size is a u16
  CHECK(min_ring_bytes(32768) == 256u << 10);
  CHECK(min_ring_bytes(8) == 8192);
  CHECK(min_ring_bytes(65528) == 256u << 10);
  CHECK_THROWS_WITH(make(99, std::nullopt, 32768, 8 << 10),
                    Catch::Contains("invalid --buffer-size 8K") && Catch::Contains("a sample takes up to 34088 bytes") &&
                        Catch::Contains("use --buffer-size 256K or more"));
  CHECK_THROWS_WITH(make(99, std::nullopt, 32768, 128 << 10), Catch::Contains("256K"));
  CHECK(make(99, std::nullopt, 32768, 256 << 10).buffer_bytes == (256u << 10));
  CHECK(make(99, std::nullopt, 1024, 16 << 10).buffer_bytes == (16u << 10));
}

TEST_CASE("off-CPU options: defaults, limits and what they need", "[event_spec]") {
  auto o = make(std::nullopt, std::nullopt, kDefaultStackSize);
  add_offcpu_options(o, false, 1, kDefaultOffCpuMinNs, kDefaultOffCpuStackSize);
  REQUIRE(o.off_cpu);
  CHECK(o.off_cpu->settings.every == 1);
  CHECK(o.off_cpu->settings.min_ns == 1'000'000);
  CHECK(o.off_cpu->settings.stack_size == 8192);
  CHECK(std::string(o.off_cpu->default_weight()) == "off-cpu");
  auto w = make(std::nullopt, std::nullopt, kDefaultStackSize, 0, "task-clock");
  add_offcpu_options(w, true, 4, 0, 16384);
  CHECK(std::string(w.off_cpu->default_weight()) == "wall");
  CHECK(w.off_cpu->settings.every == 4);

  auto fresh = [] { return make(std::nullopt, std::nullopt, kDefaultStackSize); };
  auto o1 = fresh();
  CHECK_THROWS_WITH(add_offcpu_options(o1, false, 0, 0, 8192), Catch::Contains("invalid --off-cpu-every 0"));
  CHECK_THROWS_WITH(add_offcpu_options(o1, false, 1, 0, 7), Catch::Contains("invalid --off-cpu-stack-size 7"));
  CHECK_THROWS_WITH(add_offcpu_options(o1, false, 1, 0, 65536), Catch::Contains("invalid --off-cpu-stack-size 65536"));
  CHECK_FALSE(o1.off_cpu);
  auto faults = make(std::nullopt, std::nullopt, kDefaultStackSize, 0, "page-faults");
  CHECK_THROWS_WITH(add_offcpu_options(faults, true, 1, 0, 8192),
                    Catch::StartsWith("--wall adds off-CPU time") && Catch::Contains("use -e cpu-clock"));
  auto user_only = make_sampling_options("cpu-clock", std::nullopt, std::nullopt, kDefaultStackSize, 0, true, false);
  CHECK_THROWS_WITH(add_offcpu_options(user_only, false, 1, 0, 8192), Catch::Contains("drop --no-kernel"));
  auto small_ring = make(std::nullopt, std::nullopt, 8, 16384);
  CHECK_THROWS_WITH(add_offcpu_options(small_ring, false, 1, 0, 8192), Catch::Contains("invalid --buffer-size 16K"));
}

TEST_CASE("durations parse with a unit, or as a bare 0", "[event_spec]") {
  CHECK(parse_duration_ns("0", "--off-cpu-min") == 0);
  CHECK(parse_duration_ns("1ms", "--off-cpu-min") == 1'000'000);
  CHECK(parse_duration_ns("500us", "--off-cpu-min") == 500'000);
  CHECK(parse_duration_ns("250ns", "--off-cpu-min") == 250);
  CHECK(parse_duration_ns("1.5s", "--off-cpu-min") == 1'500'000'000);
  CHECK(parse_duration_ns("0ms", "--off-cpu-min") == 0);
  for (const char* bad : {"", "-1ms", "abc", "1", "1h", "ms", "1e30s", "nan", "inf"})
    CHECK_THROWS_WITH(parse_duration_ns(bad, "--off-cpu-min"),
                      Catch::StartsWith(std::string("invalid --off-cpu-min '") + bad + "'"));
}
