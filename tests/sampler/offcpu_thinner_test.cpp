#include "sampler/offcpu_thinner.h"

#include <catch2/catch.hpp>
#include <vector>

#include "sampler/perf_records.h"
#include "support/offcpu_raw_records.h"

using namespace swprof;

namespace {

using swprof::testing::kOffCpuLayout;
using Wait = swprof::testing::OffCpuWait;
constexpr uint64_t kMs = 1'000'000;

struct Collected : OffCpuThinner::Output {
  std::vector<uint64_t> written;  // times of the written samples
  std::vector<OffCpuRepeatRecord> repeats;
  void off_cpu_sample(Bytes raw) override {
    auto s = parse_perf_sample(raw, kOffCpuLayout);
    REQUIRE(s);
    written.push_back(s->time);
  }
  void off_cpu_repeat(const OffCpuRepeatRecord& r) override { repeats.push_back(r); }
};

void add(OffCpuThinner& thinner, uint32_t tid, uint64_t time, const Wait& wait = {}) {
  auto raw = swprof::testing::raw_offcpu_sample(tid, time, wait);
  auto view = parse_perf_sample(Bytes(raw.data(), raw.size()), kOffCpuLayout);
  REQUIRE(view);
  thinner.add_sample(Bytes(raw.data(), raw.size()), *view);
}

void switch_in(OffCpuThinner& thinner, uint32_t tid, uint64_t time) {
  thinner.add_switch(SwitchRecord{time, 100, tid, 0, false, false, false});
}

}  // namespace

TEST_CASE("a sample is held until its wait's length is known", "[offcpu_thinner]") {
  Collected out;
  OffCpuThinner thinner(kMs, out);
  add(thinner, 7, 10 * kMs);
  CHECK(out.written.empty());
  thinner.add_switch(SwitchRecord{10 * kMs + 10, 100, 7, 0, true, false, false});  // its switch-out decides nothing
  CHECK(out.written.empty());
  switch_in(thinner, 7, 10 * kMs + 500);  // short, but no earlier stack to repeat
  CHECK(out.written == std::vector<uint64_t>{10 * kMs});
  CHECK(out.repeats.empty());
}

TEST_CASE("a short wait whose stack repeats one of the last written ones becomes a repeat record", "[offcpu_thinner]") {
  Collected out;
  OffCpuThinner thinner(kMs, out);
  Wait nap, pipe;
  pipe.user_ip = 0x402000;
  pipe.kernel_ip = 0xffffffff81002000ull;
  add(thinner, 7, 10 * kMs, nap);
  switch_in(thinner, 7, 14 * kMs);  // long: written
  add(thinner, 7, 20 * kMs, pipe);
  switch_in(thinner, 7, 20 * kMs + 100);  // short, new stack: written
  add(thinner, 7, 30 * kMs, nap);
  switch_in(thinner, 7, 30 * kMs + 100);  // short, same as the first: a repeat of it
  add(thinner, 7, 40 * kMs, pipe);
  switch_in(thinner, 7, 40 * kMs + 100);
  CHECK(out.written == std::vector<uint64_t>{10 * kMs, 20 * kMs});
  REQUIRE(out.repeats.size() == 2);
  CHECK(out.repeats[0].time == 30 * kMs);
  CHECK(out.repeats[0].ref_time == 10 * kMs);
  CHECK(out.repeats[0].tid == 7);
  CHECK(out.repeats[0].pid == 100);
  CHECK(out.repeats[1].ref_time == 20 * kMs);
}

TEST_CASE("the signature is ip, sp, kernel chain and the first 256 stack bytes", "[offcpu_thinner]") {
  auto signature = [](const Wait& wait) {
    auto raw = swprof::testing::raw_offcpu_sample(7, 1, wait);
    return OffCpuThinner::signature(*parse_perf_sample(Bytes(raw.data(), raw.size()), kOffCpuLayout));
  };
  const Wait base;
  Wait other_ip = base, other_kernel = base, other_top = base, other_deep = base;
  other_ip.user_ip += 1;
  other_kernel.kernel_ip += 8;
  other_top.stack_fill = 2;
  other_deep.deep_fill = 2;
  CHECK(signature(other_ip) != signature(base));
  CHECK(signature(other_kernel) != signature(base));
  CHECK(signature(other_top) != signature(base));
  CHECK(signature(other_deep) == signature(base));  // deeper bytes are not looked at (the method's error)
}

TEST_CASE("only a thread's own recent stacks count, and at most the last 8", "[offcpu_thinner]") {
  Collected out;
  OffCpuThinner thinner(kMs, out);
  add(thinner, 7, 10 * kMs);
  switch_in(thinner, 7, 20 * kMs);
  add(thinner, 8, 30 * kMs);  // same stack, other thread
  switch_in(thinner, 8, 30 * kMs + 1);
  CHECK(out.written.size() == 2);
  // Thread 7 writes 8 other stacks: the first falls out of its recent ones.
  for (uint8_t i = 0; i < 8; ++i) {
    Wait w;
    w.stack_fill = static_cast<uint8_t>(10 + i);
    add(thinner, 7, (40 + i) * kMs, w);
    switch_in(thinner, 7, (40 + i) * kMs + 1);
  }
  add(thinner, 7, 60 * kMs);
  switch_in(thinner, 7, 60 * kMs + 1);
  CHECK(out.repeats.empty());
  CHECK(out.written.size() == 11);
}

TEST_CASE("a wait lasting min without a switch-in is long, a switch-in seen first decides at once", "[offcpu_thinner]") {
  Collected out;
  OffCpuThinner thinner(kMs, out);
  add(thinner, 7, 10 * kMs);
  switch_in(thinner, 7, 10 * kMs + 5);
  add(thinner, 7, 20 * kMs);
  thinner.release_waits_longer_than_min(21 * kMs - 1);
  CHECK(out.written.size() == 1);
  thinner.release_waits_longer_than_min(21 * kMs);
  CHECK(out.written.size() == 2);  // long for sure, written even though its stack repeats
  switch_in(thinner, 7, 21 * kMs + 5);
  CHECK(out.written.size() == 2);
  // The switch-in came from another CPU's ring before the sample: decided on arrival.
  switch_in(thinner, 7, 30 * kMs + 100);
  add(thinner, 7, 30 * kMs);
  CHECK(out.repeats.size() == 1);
  CHECK(out.repeats[0].ref_time == 20 * kMs);
}

TEST_CASE("a held sample is written when its switch-in was lost, and at flush", "[offcpu_thinner]") {
  Collected out;
  OffCpuThinner thinner(kMs, out);
  add(thinner, 7, 10 * kMs);
  add(thinner, 7, 11 * kMs);  // no switch-in between: the first is written as is
  CHECK(out.written == std::vector<uint64_t>{10 * kMs});
  add(thinner, 9, 11 * kMs);
  thinner.flush();
  CHECK(out.written.size() == 3);
  CHECK(out.repeats.empty());
  thinner.flush();
  CHECK(out.written.size() == 3);
}
