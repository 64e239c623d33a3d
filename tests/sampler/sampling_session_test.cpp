// run_record (sampler/sampling_session.h) called as cli/ calls it, on the
// test workloads.

#include "sampler/sampling_session.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "support/cli_harness.h"
#include "support/temp_dir.h"

using namespace swprof;
using swprof::testing::TempDir;

TEST_CASE("record loses no sample while the recorder's own loop stalls for a second at a time", "[sampling_session]") {
  TempDir dir;
  RecordRequest req;
  req.sampling = make_sampling_options("cpu-clock", std::nullopt, std::nullopt, kDefaultStackSize, 0, true, std::nullopt);
  req.command = {swprof::testing::workload_bin(), "spin", "0.5"};
  req.output = dir.file("stalled.swprof");
  // The progress callback runs in the recorder's loop, as a chunk's
  // compression or the files of a burst of new processes do: each call
  // holds the loop for a second. The default ring (2 MiB at 999 Hz and
  // 32 KiB stacks) holds 1/16 s of samples: a loop that also reads the
  // rings drops what the workload samples beyond that in every stall.
  int calls = 0;
  req.progress = [&](const SessionProgress& p) {
    if (p.done) return;
    ++calls;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  };
  const SessionSummary summary = run_record(req);
  INFO("progress calls: " << calls);
  CHECK(summary.end_reason == "exited");
  CHECK(calls >= 1);
  CHECK(summary.samples >= 250);  // 0.5 s of CPU time at 999 Hz
  CHECK(summary.lost == 0);
}
