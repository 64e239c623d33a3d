#include "sampler/recorder.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "recording/recording_reader.h"
#include "sampler/perf_event.h"
#include "support/offcpu_raw_records.h"
#include "support/temp_dir.h"

using namespace swprof;
using swprof::testing::TempDir;

TEST_CASE("Recorder writes the records and an end record, and reports progress through its callback", "[recorder]") {
  TempDir dir;
  const std::string path = dir.file("rec.swprof");
  std::vector<SessionProgress> heard;
  Recorder recorder(PerfLayout{kSampleType, kX86_64RegsMask}, [&](const SessionProgress& p) { heard.push_back(p); });
  RecordingHeader header;
  header.mode = "attach";
  recorder.open(path, header);
  CommRecord comm;
  comm.pid = comm.tid = 42;
  comm.comm = "worker";
  recorder.write_synthesized(comm);
  recorder.tick();  // the first tick always reports
  REQUIRE(heard.size() == 1);
  CHECK_FALSE(heard[0].done);
  CHECK(heard[0].samples == 0);

  recorder.sampling_stopped(123'456'789);
  SessionSummary summary = recorder.finish("duration", std::nullopt);
  REQUIRE(heard.size() == 2);
  CHECK(heard[1].done);
  CHECK(summary.end_reason == "duration");
  CHECK(summary.output == path);
  CHECK_FALSE(summary.has_wait_status);
  CHECK(summary.file_bytes > 0);

  RecordingReader reader(path);
  bool saw_comm = false, saw_end = false;
  while (auto rec = reader.next()) {
    if (auto* c = std::get_if<CommRecord>(&*rec)) saw_comm = c->comm == "worker";
    if (auto* e = std::get_if<EndRecord>(&*rec))
      saw_end = e->json.find("\"end_reason\":\"duration\"") != std::string::npos &&
                e->json.find("\"end_monotonic_ns\":123456789") != std::string::npos;  // where open waits end
  }
  CHECK(saw_comm);
  CHECK(saw_end);
}

TEST_CASE("Recorder without a progress callback stays silent and records the command's exit", "[recorder]") {
  TempDir dir;
  Recorder recorder(PerfLayout{kSampleType, kX86_64RegsMask}, {});
  recorder.open(dir.file("rec.swprof"), RecordingHeader{});
  recorder.tick();
  SessionSummary summary = recorder.finish("exited", 7 << 8);
  CHECK(summary.has_wait_status);
  CHECK(exit_code_from_wait_status(summary.wait_status) == 7);
}

TEST_CASE("Recorder counts every thread it sees, sampled or not, as info does", "[recorder]") {
  TempDir dir;
  Recorder recorder(PerfLayout{kSampleType, kX86_64RegsMask}, {});
  recorder.open(dir.file("rec.swprof"), RecordingHeader{});
  recorder.write_synthesized(CommRecord{1, 42, 42, true, "app"});
  recorder.write_synthesized(TaskRecord{false, 2, 42, 42, 43, 42});  // a thread never named nor sampled
  recorder.write_synthesized(TaskRecord{true, 3, 42, 42, 43, 42});
  recorder.write_synthesized(TaskRecord{false, 4, 44, 42, 44, 42});  // a child process
  const SessionSummary summary = recorder.finish("exited", 0);
  CHECK(summary.samples == 0);
  CHECK(summary.threads == 3);
}

TEST_CASE("Recorder writes off-CPU rings: switch records always, samples through the thinner, losses apart",
          "[recorder]") {
  using namespace swprof::testing;
  constexpr uint64_t kMs = 1'000'000;
  TempDir dir;
  const std::string path = dir.file("rec.swprof");
  Recorder recorder(PerfLayout{kSampleType, kX86_64RegsMask}, {});
  recorder.record_off_cpu(kMs);
  recorder.open(path, RecordingHeader{});
  auto feed = [&](const std::vector<uint8_t>& raw) { recorder.handle(Bytes(raw.data(), raw.size()), kOffCpuLayout); };
  feed(raw_offcpu_sample(7, 10 * kMs));
  feed(raw_switch(7, 10 * kMs + 10, true));
  feed(raw_switch(7, 14 * kMs, false, 1));  // a long wait: its sample is written
  feed(raw_offcpu_sample(7, 20 * kMs));
  feed(raw_switch(7, 20 * kMs + 10, true));
  feed(raw_switch(7, 20 * kMs + 100, false));  // short, same stack: a repeat
  feed(raw_offcpu_sample(7, 30 * kMs));  // still waiting at the end: written at finish
  std::vector<uint8_t> lost;
  ByteWriter w(lost);
  w.put(perf_event_header{PERF_RECORD_LOST, 0, 0});
  w.put<uint64_t>(1);
  w.put<uint64_t>(5);
  for (uint64_t v : {uint64_t{100} | (uint64_t{7} << 32), 31 * kMs, uint64_t{0}}) w.put(v);
  set_record_size(lost);
  feed(lost);
  SessionSummary summary = recorder.finish("exited", 0);
  CHECK(summary.off_cpu);
  CHECK(summary.switch_outs == 2);
  CHECK(summary.off_cpu_samples == 2);
  CHECK(summary.off_cpu_repeats == 1);
  CHECK(summary.off_cpu_lost == 5);
  CHECK(summary.lost == 0);  // the timer's rings lost nothing
  CHECK(summary.samples == 0);

  RecordingReader reader(path);
  std::vector<uint64_t> sample_times;
  std::vector<OffCpuRepeatRecord> repeats;
  int switches = 0;
  while (auto rec = reader.next()) {
    if (auto* s = std::get_if<SampleView>(&*rec)) {
      CHECK(s->off_cpu);
      CHECK(s->period == 0);
      CHECK(s->stack.size() == 512);
      sample_times.push_back(s->time);
    }
    if (auto* r = std::get_if<OffCpuRepeatRecord>(&*rec)) repeats.push_back(*r);
    switches += std::holds_alternative<SwitchRecord>(*rec);
  }
  CHECK(sample_times == std::vector<uint64_t>{10 * kMs, 30 * kMs});
  CHECK(switches == 4);
  REQUIRE(repeats.size() == 1);
  CHECK(repeats[0].time == 20 * kMs);
  CHECK(repeats[0].ref_time == 10 * kMs);
}

TEST_CASE("Recorder marks each drain with a flush time, unless off-CPU samples are held back", "[recorder]") {
  using namespace swprof::testing;
  constexpr uint64_t kMs = 1'000'000;
  auto flush_times = [](const std::string& path) {
    RecordingReader reader(path);
    std::vector<uint64_t> times;
    while (auto rec = reader.next())
      if (auto* f = std::get_if<FlushRecord>(&*rec)) times.push_back(f->time);
    return times;
  };
  for (const uint64_t min_ns : {uint64_t{0}, kMs}) {
    TempDir dir;
    const std::string path = dir.file("rec.swprof");
    Recorder recorder(PerfLayout{kSampleType, kX86_64RegsMask}, {});
    recorder.record_off_cpu(min_ns);  // 0: off-CPU samples are written as they come
    recorder.open(path, RecordingHeader{});
    auto feed = [&](const std::vector<uint8_t>& raw) { recorder.handle(Bytes(raw.data(), raw.size()), kOffCpuLayout); };
    recorder.drained(20 * kMs);  // nothing written yet: no flush
    feed(raw_switch(7, 30 * kMs, true));
    recorder.drained(50 * kMs);
    recorder.drained(60 * kMs);  // nothing new since
    feed(raw_switch(7, 70 * kMs, false));
    recorder.drained(Recorder::kFlushSlackNs);  // no time left before the slack
    feed(raw_switch(7, 80 * kMs, true));
    recorder.drained(90 * kMs);
    recorder.finish("exited", 0);
    INFO("--off-cpu-min " << min_ns);
    if (min_ns == 0) CHECK(flush_times(path) == std::vector<uint64_t>{50 * kMs - Recorder::kFlushSlackNs, 90 * kMs - Recorder::kFlushSlackNs});
    else CHECK(flush_times(path).empty());  // a held sample may come later with an older time
  }
}
