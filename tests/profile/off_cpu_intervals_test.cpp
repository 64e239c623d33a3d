// OffCpuIntervals (profile/off_cpu_intervals.h): switch records paired per
// thread in time order, whatever order the rings delivered them in.

#include "profile/off_cpu_intervals.h"

#include <catch2/catch.hpp>

#include "recording/recording_writer.h"
#include "support/record_fixtures.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

SwitchRecord out(uint32_t tid, uint64_t time, bool preempted = false) {
  SwitchRecord r;
  r.time = time;
  r.pid = 100;
  r.tid = tid;
  r.out = true;
  r.preempted = preempted;
  return r;
}

SwitchRecord in(uint32_t tid, uint64_t time) {
  SwitchRecord r;
  r.time = time;
  r.pid = 100;
  r.tid = tid;
  return r;
}

OffCpuRepeatRecord repeat(uint32_t tid, uint64_t time, uint64_t ref) {
  OffCpuRepeatRecord r;
  r.time = time;
  r.pid = 100;
  r.tid = tid;
  r.ref_time = ref;
  return r;
}

}  // namespace

TEST_CASE("off-CPU intervals: out and in from different CPUs, out of order, pair by time per thread",
          "[off_cpu]") {
  OffCpuIntervals iv;
  // Drain order: CPU1's ring (the switch-ins) before CPU0's (samples, outs).
  iv.add(in(7, 5'000));
  iv.add(in(8, 9'000));
  iv.add(in(7, 12'000));
  iv.add_sample(7, 1'000);
  iv.add(out(7, 1'010));  // 10 ns after its sample
  iv.add_sample(8, 2'000);
  iv.add(out(8, 2'400));
  iv.add_sample(7, 10'000);
  iv.add(out(7, 10'030, true));
  iv.finish(20'000);
  REQUIRE(iv.weight(7, 1'000));
  CHECK(iv.weight(7, 1'000)->weight_ns == 5'000 - 1'010);
  CHECK(iv.weight(7, 1'000)->matched);
  CHECK_FALSE(iv.weight(7, 1'000)->preempted);
  CHECK(iv.weight(8, 2'000)->weight_ns == 9'000 - 2'400);
  const OffCpuWeight* preempted = iv.weight(7, 10'000);
  CHECK(preempted->weight_ns == 12'000 - 10'030);
  CHECK(preempted->preempted);
  CHECK(preempted->preempted_ns == preempted->weight_ns);
  CHECK_FALSE(preempted->open);
  CHECK(iv.unattributed_ns() == 0);
  CHECK(iv.weight(7, 1'010) == nullptr);  // no sample at the switch-out's time
}

TEST_CASE("off-CPU intervals: a sample is matched to the first switch-out after it, before the next in",
          "[off_cpu]") {
  OffCpuIntervals iv;
  iv.add_sample(7, 1'000);
  iv.add(out(7, 1'400));  // 400 ns later: still its own
  iv.add(in(7, 2'000));
  iv.add(out(7, 3'000));  // no sample of its own: not the previous sample's (every = 1)
  iv.add(in(7, 4'000));
  iv.finish(10'000);
  CHECK(iv.weight(7, 1'000)->weight_ns == 600);
  CHECK(iv.unattributed_ns() == 1'000);
}

TEST_CASE("off-CPU intervals: missing out is skipped, missing in ends at the recording's end (open)",
          "[off_cpu]") {
  OffCpuIntervals iv;
  iv.add(in(7, 500));  // first record after attach: its out was before
  iv.add_sample(7, 1'000);
  iv.add(out(7, 1'100));
  iv.finish(9'100);
  const OffCpuWeight* w = iv.weight(7, 1'000);
  CHECK(w->weight_ns == 8'000);
  CHECK(w->open);
  CHECK(iv.unattributed_ns() == 0);
}

TEST_CASE("off-CPU intervals: out then out (the in was lost) ends the first at the second", "[off_cpu]") {
  OffCpuIntervals iv;
  iv.add_sample(7, 1'000);
  iv.add(out(7, 1'000));
  iv.add_sample(7, 3'000);
  iv.add(out(7, 3'000));
  iv.add(in(7, 3'500));
  iv.finish(10'000);
  CHECK(iv.weight(7, 1'000)->weight_ns == 2'000);
  CHECK_FALSE(iv.weight(7, 1'000)->open);
  CHECK(iv.weight(7, 3'000)->weight_ns == 500);
}

TEST_CASE("off-CPU intervals: repeat records charge their interval to the sample they name", "[off_cpu]") {
  OffCpuIntervals iv;
  iv.add_sample(7, 1'000);
  iv.add(out(7, 1'000));
  iv.add(in(7, 2'000));
  iv.add_sample(7, 3'000);
  iv.add(out(7, 3'000));
  iv.add(in(7, 3'200));
  iv.add(repeat(7, 4'000, 1'000));
  iv.add(out(7, 4'010, true));
  iv.add(in(7, 4'110));
  iv.finish(10'000);
  const OffCpuWeight* first = iv.weight(7, 1'000);
  CHECK(first->weight_ns == 1'000 + 100);
  CHECK(first->preempted_ns == 100);
  CHECK_FALSE(first->preempted);  // its own switch-out was a wait
  CHECK(iv.weight(7, 3'000)->weight_ns == 200);
}

TEST_CASE("off-CPU intervals: with every > 1, unsampled intervals go to the thread's latest sample",
          "[off_cpu]") {
  OffCpuIntervals iv(4);
  iv.add(out(7, 100));  // before any sample: nowhere to charge it
  iv.add(in(7, 200));
  iv.add_sample(7, 1'000);
  iv.add(out(7, 1'000));
  iv.add(in(7, 2'000));
  iv.add(out(7, 3'000));
  iv.add(in(7, 3'300));
  iv.add(out(9, 3'000));  // another thread's interval is not this one's
  iv.add(in(9, 3'900));
  iv.finish(10'000);
  CHECK(iv.weight(7, 1'000)->weight_ns == 1'000 + 300);
  CHECK(iv.unattributed_ns() == 100 + 900);
}

TEST_CASE("off-CPU intervals: with every > 1, an unsampled wait goes to the latest wait, an unsampled "
          "preemption to the latest preemption", "[off_cpu]") {
  OffCpuIntervals iv(2);
  iv.add_sample(7, 1'000);  // a wait (nanosleep, say)
  iv.add(out(7, 1'000));
  iv.add(in(7, 2'000));
  iv.add_sample(7, 3'000);  // preempted while running
  iv.add(out(7, 3'000, true));
  iv.add(in(7, 3'100));
  iv.add(out(7, 4'000));  // unsampled wait: the wait's stack, not where it last ran
  iv.add(in(7, 8'000));
  iv.add(out(7, 9'000, true));  // unsampled preemption
  iv.add(in(7, 9'050));
  iv.finish(10'000);
  CHECK(iv.weight(7, 1'000)->weight_ns == 1'000 + 4'000);
  CHECK(iv.weight(7, 3'000)->weight_ns == 100 + 50);
  CHECK(iv.weight(7, 3'000)->preempted_ns == 150);
  CHECK(iv.unattributed_ns() == 0);
}

TEST_CASE("off-CPU intervals: read pairs a recording's switch records and off-CPU samples", "[off_cpu]") {
  TempDir dir;
  const std::string path = dir.file("off.swprof");
  {
    RecordingHeader header;
    header.mode = "record";
    header.event = "cpu-clock";
    header.off_cpu = true;
    RecordingWriter w(path, header);
    OwnedSample on = make_sample(7, 500, 0x7ff000, std::vector<uint8_t>(16, 0));
    w.write(on.view);  // on-CPU samples have no interval
    w.write(in(7, 6'000));  // drained before the out from another CPU's ring
    OwnedSample off = make_sample(7, 1'000, 0x7ff000, std::vector<uint8_t>(16, 0));
    off.view.off_cpu = true;
    off.view.period = 0;
    w.write(off.view);
    w.write(out(7, 1'020));
    w.finish(EndRecord{"{}"});
  }
  const OffCpuIntervals iv = OffCpuIntervals::read(path);
  REQUIRE(iv.weight(7, 1'000));
  CHECK(iv.weight(7, 1'000)->weight_ns == 6'000 - 1'020);
  CHECK(iv.weight(7, 500) == nullptr);
}

TEST_CASE("off-CPU intervals: a wait without a switch-in ends when sampling stopped, as the end record says",
          "[off_cpu]") {
  TempDir dir;
  const auto write = [&](const std::string& path, const std::string& end_json) {
    RecordingHeader header;
    header.mode = "attach";
    header.event = "cpu-clock";
    header.off_cpu = true;
    RecordingWriter w(path, header);
    // Blocked before the attach: a synthesized switch-out with its sample,
    // then nothing until the end (the thread never ran).
    OwnedSample off = make_sample(7, 1'000, 0x7ff000, std::vector<uint8_t>(16, 0));
    off.view.off_cpu = true;
    off.view.period = 0;
    w.write(off.view);
    SwitchRecord synthesized = out(7, 1'000);
    synthesized.synthesized = true;
    w.write(synthesized);
    OwnedSample later = make_sample(8, 2'000, 0x7ff000, std::vector<uint8_t>(16, 0));
    w.write(later.view);  // the last record
    w.finish(EndRecord{end_json});
  };
  write(dir.file("stopped.swprof"), R"({"end_reason":"duration","end_monotonic_ns":3000000})");
  const OffCpuIntervals stopped = OffCpuIntervals::read(dir.file("stopped.swprof"));
  REQUIRE(stopped.weight(7, 1'000));
  CHECK(stopped.weight(7, 1'000)->weight_ns == 3'000'000 - 1'000);
  CHECK(stopped.weight(7, 1'000)->open);
  // Recordings without it (older ones, one cut short): the last record's time.
  write(dir.file("older.swprof"), R"({"end_reason":"duration"})");
  CHECK(OffCpuIntervals::read(dir.file("older.swprof")).weight(7, 1'000)->weight_ns == 2'000 - 1'000);
}
