#include "sampler/recorder.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "recording/recording_reader.h"
#include "sampler/perf_event.h"
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
    if (auto* e = std::get_if<EndRecord>(&*rec)) saw_end = e->json.find("\"end_reason\":\"duration\"") != std::string::npos;
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
