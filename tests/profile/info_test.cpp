// The stack-size advice of `info` and of the summary after recording: never
// a size at or below the current one, never above the maximum; at the
// maximum, say so.

#include <catch2/catch.hpp>
#include <string>

#include "profile/info.h"
#include "sampler/event_spec.h"
#include "sampler/sampling_session.h"
#include "support/temp_dir.h"
#include "support/thread_recording.h"

using namespace swprof;

namespace {

RecordingInfo info_with(uint32_t stack_size, uint64_t samples, uint64_t truncated, uint32_t copied) {
  RecordingInfo info;
  info.header.stack_size = stack_size;
  info.samples = samples;
  info.truncated = truncated;
  info.stack_sizes.assign(samples, copied);
  return info;
}

std::string suggestion_line(const RecordingInfo& info) {
  const std::string text = format_info(info);
  const size_t at = text.find("  suggestion");
  REQUIRE(at != std::string::npos);
  return text.substr(at, text.find('\n', at) - at);
}

SessionSummary summary_with(uint32_t stack_size, uint64_t samples, uint64_t truncated) {
  SessionSummary s;
  s.output = "out.swprof";
  s.end_reason = "exited";
  s.samples = samples;
  s.truncated = truncated;
  s.stack_size = stack_size;
  return s;
}

}  // namespace

TEST_CASE("info: stacks cut short below the maximum suggest a larger size", "[recording_info]") {
  const RecordingInfo info = info_with(8192, 100, 50, 8192);
  CHECK(info.suggested_stack_size() == 16384);
  CHECK(suggestion_line(info) == "  suggestion     --stack-size 16384 (stacks were cut short)");
  CHECK(info_with(49152, 100, 50, 49152).suggested_stack_size() == kMaxStackSize);
}

TEST_CASE("info: stacks cut short at the maximum say so instead of suggesting the same size", "[recording_info]") {
  const RecordingInfo info = info_with(kMaxStackSize, 100, 50, 64000);
  CHECK(info.stacks_cut_short());
  const std::string line = suggestion_line(info);
  CHECK(line.find("is the maximum") != std::string::npos);
  CHECK(line.find("deeper than the kernel can copy") != std::string::npos);
  CHECK(line.find("is right") == std::string::npos);
}

TEST_CASE("info: whole stacks get the p99 with headroom", "[recording_info]") {
  CHECK(suggestion_line(info_with(32768, 100, 0, 4000)) ==
        "  suggestion     --stack-size 8192 would still copy 99% of stacks whole");
  CHECK(suggestion_line(info_with(8192, 100, 0, 4000)) == "  suggestion     --stack-size 8192 is right");
}

TEST_CASE("summary: cut stacks advise a larger --stack-size only below the maximum", "[recording_info]") {
  const std::string below = format_summary(summary_with(32768, 100, 10));
  CHECK(below.find("cut at --stack-size 32768; raise --stack-size (up to 65528)") != std::string::npos);
  const std::string at_max = format_summary(summary_with(kMaxStackSize, 100, 10));
  CHECK(at_max.find("cut at --stack-size 65528, the maximum: these stacks are deeper than the kernel can copy") !=
        std::string::npos);
  CHECK(at_max.find("raise --stack-size") == std::string::npos);
  CHECK(format_summary(summary_with(32768, 100, 0)).find("stack copy") == std::string::npos);
}

TEST_CASE("run_info: the recording's contents, and its unwinding only when asked and there are samples",
          "[recording_info]") {
  testing::TempDir dir;
  const std::string recording = dir.file("threads.swprof");
  testing::write_thread_recording(recording);
  InfoOptions options;
  options.unwind.threads = 1;
  InfoResult with = run_info(recording, options);
  CHECK(with.recording.samples == 4);
  CHECK(with.recording.lost == 5);
  CHECK(with.recording.threads.at(101).comm == "worker");
  REQUIRE(with.unwinding);
  CHECK(with.unwinding->stats.samples == 4);
  CHECK(with.unwinding->unwinder == UnwinderChoice::kChain);

  options.unwind_quality = false;
  CHECK_FALSE(run_info(recording, options).unwinding);

  const std::string empty = dir.file("empty.swprof");
  {
    RecordingWriter w(empty, RecordingHeader{});
    w.finish(EndRecord{"{}"});
  }
  options.unwind_quality = true;
  const InfoResult none = run_info(empty, options);
  CHECK(none.recording.samples == 0);
  CHECK_FALSE(none.unwinding);
}

TEST_CASE("measure_unwinding: every sample unwound with the chosen unwinder", "[recording_info]") {
  testing::TempDir dir;
  const std::string recording = dir.file("threads.swprof");
  testing::write_thread_recording(recording);
  UnwindOptions options;
  options.threads = 1;
  options.unwinder = UnwinderChoice::kLibunwind;
  const UnwindQuality quality = measure_unwinding(recording, options);
  CHECK(quality.stats.samples == 4);
  CHECK(quality.unwinder == UnwinderChoice::kLibunwind);
}
