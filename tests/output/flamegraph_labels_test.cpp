#include "output/flamegraph_labels.h"

#include <catch2/catch.hpp>

#include "common/format.h"
#include "support/profile_fixture.h"

using namespace swprof;

TEST_CASE("flame graph labels: the command, samples, event, duration and host", "[flamegraph_labels]") {
  Profile p = testing::sample_profile();
  FlamegraphLabels labels = flamegraph_labels(p, InputKind::kRecording);
  CHECK(labels.title == "swprof: ./app --fast");
  CHECK(labels.subtitle == "100 samples of cpu-clock over 0.10 s on host");
  p.header.start_unix_ns = 1'700'000'000'000'000'000;
  p.reversed = true;
  labels = flamegraph_labels(p, InputKind::kJsonProfile, "my title");
  CHECK(labels.title == "my title");
  CHECK(labels.subtitle == "100 samples of cpu-clock over 0.10 s, " + format_time(p.header.start_unix_ns) +
                               " on host (reversed: leaves at the root)");
}

TEST_CASE("flame graph labels: a profile without command or event", "[flamegraph_labels]") {
  Profile p = testing::sample_profile();
  p.header = RecordingHeader{};
  p.source = "in.json";
  const FlamegraphLabels labels = flamegraph_labels(p, InputKind::kJsonProfile);
  CHECK(labels.title == "swprof: in.json");
  CHECK(labels.subtitle == "100 samples of events over 0.10 s");
}

TEST_CASE("flame graph labels: folded stacks are named by their file and count samples", "[flamegraph_labels]") {
  Profile p;
  p.source = "stacks.folded";
  testing::add_stack(p.tree, {testing::fn("main"), testing::fn("a")}, 7);
  const FlamegraphLabels labels = flamegraph_labels(p, InputKind::kFolded);
  CHECK(labels.title == "swprof: stacks.folded");
  CHECK(labels.subtitle == "7 samples");
}

TEST_CASE("flame graph labels: off-CPU and wall profiles say what the widths are", "[flamegraph_labels]") {
  const Profile wall = testing::wall_profile();
  CHECK(flamegraph_labels(wall, InputKind::kJsonProfile).subtitle ==
        "8 samples of cpu-clock over 0.10 s on host; wall time 24.000 ms, 83.3 % off-CPU");
  const Profile off = testing::wall_profile(WeightKind::kOffCpu);
  CHECK(flamegraph_labels(off, InputKind::kJsonProfile).subtitle ==
        "4 samples of cpu-clock over 0.10 s on host; off-CPU time 20.000 ms");
}
