#include "sampler/perf_records.h"

#include <linux/perf_event.h>

#include <catch2/catch.hpp>
#include <cstring>

#include "common/byte_reader.h"
#include "sampler/perf_event.h"

using namespace swprof;

namespace {

const PerfLayout kLayout{kSampleType | PERF_SAMPLE_CALLCHAIN, kX86_64RegsMask};

// Builds a raw record: header + body + the sample_id trailer (pid/tid, time, cpu).
std::vector<uint8_t> raw_record(uint32_t type, uint16_t misc, const std::vector<uint8_t>& body, uint64_t time = 77,
                                uint32_t cpu = 1) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.put(perf_event_header{type, misc, 0});
  w.put_bytes(Bytes(body.data(), body.size()));
  if (type != PERF_RECORD_SAMPLE) {
    w.put<uint32_t>(100);
    w.put<uint32_t>(101);
    w.put<uint64_t>(time);
    w.put<uint32_t>(cpu);
    w.put<uint32_t>(0);
  }
  const uint16_t size = static_cast<uint16_t>(out.size());
  std::memcpy(out.data() + 6, &size, 2);
  return out;
}

std::vector<uint8_t> sample_body(uint64_t stack_request, uint64_t dyn_size, bool regs = true, bool period = true) {
  std::vector<uint8_t> b;
  ByteWriter w(b);
  w.put<uint64_t>(0x401234);          // ip
  w.put<uint32_t>(100);               // pid
  w.put<uint32_t>(101);               // tid
  w.put<uint64_t>(5555);              // time
  w.put<uint32_t>(1);                 // cpu
  w.put<uint32_t>(0);
  if (period) w.put<uint64_t>(1001001);
  w.put<uint64_t>(3);                 // callchain nr
  w.put<uint64_t>(PERF_CONTEXT_KERNEL);
  w.put<uint64_t>(0xffffffff81001000ull);
  w.put<uint64_t>(0xffffffff81002000ull);
  if (regs) {
    w.put<uint64_t>(PERF_SAMPLE_REGS_ABI_64);
    for (uint64_t i = 0; i < 20; ++i) w.put<uint64_t>(i == 7 ? 0x7ffc0000 : i);
  } else {
    w.put<uint64_t>(PERF_SAMPLE_REGS_ABI_NONE);
  }
  w.put<uint64_t>(stack_request);
  if (stack_request) {
    for (uint64_t i = 0; i < stack_request; ++i) w.put<uint8_t>(static_cast<uint8_t>(i));
    w.put<uint64_t>(dyn_size);
  }
  return b;
}

}  // namespace

TEST_CASE("a kernel sample record parses field by field", "[perf_records]") {
  auto raw = raw_record(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, sample_body(64, 40));
  auto s = parse_perf_sample(Bytes(raw.data(), raw.size()), kLayout);
  REQUIRE(s);
  CHECK(s->ip == 0x401234);
  CHECK(s->pid == 100);
  CHECK(s->tid == 101);
  CHECK(s->time == 5555);
  CHECK(s->cpu == 1);
  CHECK(s->period == 1001001);
  CHECK(s->in_kernel);
  REQUIRE(s->kernel_depth() == 2);  // the context marker is dropped
  CHECK(s->kernel_ip(0) == 0xffffffff81001000ull);
  CHECK(s->abi == PERF_SAMPLE_REGS_ABI_64);
  CHECK(s->nregs == 20);
  CHECK(s->regs[7] == 0x7ffc0000);
  CHECK(s->stack.size() == 40);  // only the valid dyn_size bytes
  CHECK(s->stack[39] == 39);
  CHECK_FALSE(s->stack_truncated);
}

TEST_CASE("a full stack copy is flagged as truncated", "[perf_records]") {
  auto raw = raw_record(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sample_body(64, 64));
  auto s = parse_perf_sample(Bytes(raw.data(), raw.size()), kLayout);
  REQUIRE(s);
  CHECK(s->stack_truncated);
  CHECK_FALSE(s->in_kernel);
}

TEST_CASE("a kernel thread sample has no registers and no stack", "[perf_records]") {
  auto raw = raw_record(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, sample_body(0, 0, false));
  auto s = parse_perf_sample(Bytes(raw.data(), raw.size()), kLayout);
  REQUIRE(s);
  CHECK(s->nregs == 0);
  CHECK(s->stack.empty());
}

TEST_CASE("truncated or inconsistent samples are rejected", "[perf_records]") {
  auto raw = raw_record(PERF_RECORD_SAMPLE, 0, sample_body(64, 40));
  for (size_t cut : {size_t{4}, size_t{20}, size_t{100}, raw.size() - 1}) {
    CAPTURE(cut);
    CHECK_FALSE(parse_perf_sample(Bytes(raw.data(), cut), kLayout).has_value());
  }
  auto bad_dyn = raw_record(PERF_RECORD_SAMPLE, 0, sample_body(64, 65));
  CHECK_FALSE(parse_perf_sample(Bytes(bad_dyn.data(), bad_dyn.size()), kLayout).has_value());
  auto parsed = parse_perf_record(Bytes(raw.data(), 100), kLayout);
  CHECK(parsed.malformed);
}

TEST_CASE("MMAP2 with a build-id", "[perf_records]") {
  std::vector<uint8_t> body;
  ByteWriter w(body);
  w.put<uint32_t>(100);
  w.put<uint32_t>(101);
  w.put<uint64_t>(0x7f0000001000);
  w.put<uint64_t>(0x3000);
  w.put<uint64_t>(0x1000);
  w.put<uint8_t>(20);
  w.put<uint8_t>(0);
  w.put<uint16_t>(0);
  for (uint8_t i = 0; i < 20; ++i) w.put<uint8_t>(i);
  w.put<uint32_t>(5);
  w.put<uint32_t>(2);
  const char path[16] = "/lib/libfoo.so";
  w.put_bytes(Bytes(reinterpret_cast<const uint8_t*>(path), sizeof path));
  auto raw = raw_record(PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID, body, 999);
  auto parsed = parse_perf_record(Bytes(raw.data(), raw.size()), kLayout);
  REQUIRE(parsed.record);
  const auto& m = std::get<MappingRecord>(*parsed.record);
  CHECK(m.start == 0x7f0000001000);
  CHECK(m.length == 0x3000);
  CHECK(m.file_offset == 0x1000);
  CHECK(m.build_id_hex() == "000102030405060708090a0b0c0d0e0f10111213");
  CHECK(m.prot == 5);
  CHECK(m.path == "/lib/libfoo.so");
  CHECK(m.time == 999);
}

TEST_CASE("COMM, FORK, EXIT, LOST and THROTTLE records", "[perf_records]") {
  SECTION("comm with exec") {
    std::vector<uint8_t> body;
    ByteWriter w(body);
    w.put<uint32_t>(100);
    w.put<uint32_t>(101);
    const char name[8] = "worker";
    w.put_bytes(Bytes(reinterpret_cast<const uint8_t*>(name), sizeof name));
    auto raw = raw_record(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, body);
    auto c = std::get<CommRecord>(*parse_perf_record(Bytes(raw.data(), raw.size()), kLayout).record);
    CHECK(c.comm == "worker");
    CHECK(c.exec);
    CHECK(c.tid == 101);
  }
  SECTION("fork and exit") {
    std::vector<uint8_t> body;
    ByteWriter w(body);
    for (uint32_t v : {200u, 100u, 201u, 101u}) w.put(v);
    w.put<uint64_t>(4242);
    auto raw = raw_record(PERF_RECORD_EXIT, 0, body);
    auto t = std::get<TaskRecord>(*parse_perf_record(Bytes(raw.data(), raw.size()), kLayout).record);
    CHECK(t.exit);
    CHECK(t.pid == 200);
    CHECK(t.ppid == 100);
    CHECK(t.tid == 201);
    CHECK(t.time == 4242);
  }
  SECTION("lost") {
    std::vector<uint8_t> body;
    ByteWriter w(body);
    w.put<uint64_t>(1);
    w.put<uint64_t>(17);
    auto raw = raw_record(PERF_RECORD_LOST, 0, body, 5, 1);
    auto l = std::get<LostRecord>(*parse_perf_record(Bytes(raw.data(), raw.size()), kLayout).record);
    CHECK(l.count == 17);
    CHECK(l.cpu == 1);
  }
  SECTION("throttle") {
    std::vector<uint8_t> body;
    ByteWriter w(body);
    w.put<uint64_t>(31);
    w.put<uint64_t>(0);
    w.put<uint64_t>(0);
    auto raw = raw_record(PERF_RECORD_THROTTLE, 0, body);
    auto t = std::get<ThrottleRecord>(*parse_perf_record(Bytes(raw.data(), raw.size()), kLayout).record);
    CHECK(t.throttled);
    CHECK(t.time == 31);
  }
  SECTION("unknown types are passed over without being malformed") {
    auto raw = raw_record(PERF_RECORD_NAMESPACES, 0, std::vector<uint8_t>(16, 0));
    auto parsed = parse_perf_record(Bytes(raw.data(), raw.size()), kLayout);
    CHECK_FALSE(parsed.record);
    CHECK_FALSE(parsed.malformed);
  }
}

namespace {

const PerfLayout kOffCpuLayout{kOffCpuSampleType, kX86_64RegsMask, true};

}  // namespace

TEST_CASE("an off-CPU sample has no period and is marked off-CPU", "[perf_records]") {
  auto raw = raw_record(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, sample_body(64, 40, true, false));
  auto s = parse_perf_sample(Bytes(raw.data(), raw.size()), kOffCpuLayout);
  REQUIRE(s);
  CHECK(s->off_cpu);
  CHECK(s->period == 0);
  CHECK(s->time == 5555);
  CHECK(s->cpu == 1);
  REQUIRE(s->kernel_depth() == 2);
  CHECK(s->kernel_ip(1) == 0xffffffff81002000ull);
  CHECK(s->nregs == 20);
  CHECK(s->stack.size() == 40);
  // The same bytes read with the timer layout would take the chain length as the period.
  auto timer = parse_perf_sample(Bytes(raw.data(), raw.size()), kLayout);
  CHECK((!timer || !timer->off_cpu));
}

TEST_CASE("SWITCH records take tid, time and cpu from the sample_id trailer", "[perf_records]") {
  SECTION("switch-out, preempted") {
    auto raw = raw_record(PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, {},
                          9000, 1);
    auto parsed = parse_perf_record(Bytes(raw.data(), raw.size()), kOffCpuLayout);
    REQUIRE(parsed.record);
    auto sw = std::get<SwitchRecord>(*parsed.record);
    CHECK(sw.out);
    CHECK(sw.preempted);
    CHECK_FALSE(sw.synthesized);
    CHECK(sw.pid == 100);
    CHECK(sw.tid == 101);
    CHECK(sw.time == 9000);
    CHECK(sw.cpu == 1);
  }
  SECTION("switch-out, blocked") {
    auto raw = raw_record(PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT, {}, 9000, 0);
    auto sw = std::get<SwitchRecord>(*parse_perf_record(Bytes(raw.data(), raw.size()), kOffCpuLayout).record);
    CHECK(sw.out);
    CHECK_FALSE(sw.preempted);
    CHECK(sw.cpu == 0);
  }
  SECTION("switch-in") {
    auto raw = raw_record(PERF_RECORD_SWITCH, 0, {}, 9100, 1);
    auto sw = std::get<SwitchRecord>(*parse_perf_record(Bytes(raw.data(), raw.size()), kOffCpuLayout).record);
    CHECK_FALSE(sw.out);
    CHECK_FALSE(sw.preempted);
    CHECK(sw.time == 9100);
    CHECK(sw.tid == 101);
  }
  SECTION("a record too short for its trailer is malformed") {
    std::vector<uint8_t> raw(sizeof(perf_event_header) + 8, 0);
    perf_event_header h{PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT, static_cast<uint16_t>(raw.size())};
    std::memcpy(raw.data(), &h, sizeof h);
    auto parsed = parse_perf_record(Bytes(raw.data(), raw.size()), kOffCpuLayout);
    CHECK_FALSE(parsed.record);
    CHECK(parsed.malformed);
  }
}

TEST_CASE("a sample's stack copy is cut past its valid bytes, and parses as before", "[perf_records]") {
  std::vector<uint8_t> scratch;
  auto raw = raw_record(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, sample_body(4096, 100));
  const Bytes cut = cut_stack_copy(Bytes(raw.data(), raw.size()), kLayout, scratch);
  CHECK(cut.size() == raw.size() - 4096 + 104);  // 100 valid bytes, up to the next multiple of 8
  perf_event_header h;
  std::memcpy(&h, cut.data(), sizeof h);
  CHECK(h.size == cut.size());
  const auto before = parse_perf_sample(Bytes(raw.data(), raw.size()), kLayout);
  const auto after = parse_perf_sample(cut, kLayout);
  REQUIRE(before);
  REQUIRE(after);
  CHECK(after->time == before->time);
  CHECK(after->kernel_depth() == before->kernel_depth());
  CHECK(after->regs[7] == before->regs[7]);
  CHECK(std::equal(after->stack.begin(), after->stack.end(), before->stack.begin(), before->stack.end()));
  CHECK_FALSE(after->stack_truncated);

  // A copy of a multiple of 8 still ends past its valid bytes: not truncated.
  auto even = raw_record(PERF_RECORD_SAMPLE, 0, sample_body(4096, 96));
  const auto even_cut = parse_perf_sample(cut_stack_copy(Bytes(even.data(), even.size()), kLayout, scratch), kLayout);
  REQUIRE(even_cut);
  CHECK(even_cut->stack.size() == 96);
  CHECK_FALSE(even_cut->stack_truncated);
}

TEST_CASE("records with nothing to cut pass through whole", "[perf_records]") {
  std::vector<uint8_t> scratch;
  const auto same = [&](const std::vector<uint8_t>& raw, const PerfLayout& layout = kLayout) {
    const Bytes out = cut_stack_copy(Bytes(raw.data(), raw.size()), layout, scratch);
    return out.data() == raw.data() && out.size() == raw.size();
  };
  CHECK(same(raw_record(PERF_RECORD_SAMPLE, 0, sample_body(64, 64))));     // a full copy: truncated, kept so
  CHECK(same(raw_record(PERF_RECORD_SAMPLE, 0, sample_body(64, 60))));     // nothing past 64 to cut
  CHECK(same(raw_record(PERF_RECORD_SAMPLE, 0, sample_body(0, 0, false))));  // no stack
  CHECK(same(raw_record(PERF_RECORD_SAMPLE, 0, sample_body(64, 65))));     // malformed: its reader counts it
  CHECK(same(raw_record(PERF_RECORD_COMM, 0, {'a', 0, 0, 0, 0, 0, 0, 0})));
  CHECK(same(raw_record(PERF_RECORD_SAMPLE, 0, sample_body(4096, 10)),
             PerfLayout{kLayout.sample_type & ~uint64_t{PERF_SAMPLE_STACK_USER}, kX86_64RegsMask}));
}
