// `swprof info` as text (output/info_text.h): the stack-size advice never
// suggests a size at or below the current one, never above the maximum, and
// at the maximum says so.

#include <catch2/catch.hpp>
#include <string>

#include "output/info_text.h"
#include "recording/recording_format.h"

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

TEST_CASE("info: samples inside execve are named as their own state, not as incomplete stacks", "[recording_info]") {
  UnwindStats st;
  st.samples = 100;
  st.complete = 80;
  st.ends[WalkEnd::kBottom] = 80;
  st.ends[WalkEnd::kNoMappingsYet] = 20;
  const std::string text = format_unwind_quality(st, UnwinderChoice::kChain);
  CHECK(text.find("  complete stacks  100.0% (80 of 80 samples)\n") != std::string::npos);
  CHECK(text.find("  inside execve    20 samples (20.0%): the old program's registers and no stack") != std::string::npos);
  CHECK(text.find("  walks ended early: none\n") != std::string::npos);
  CHECK(text.find("ended early: in execve") == std::string::npos);
}
