#include "unwind/callchain_walk.h"

#include <catch2/catch.hpp>
#include <cstring>

#include "support/fake_maps.h"
#include "support/self_snapshot.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

std::vector<uint8_t> chain_bytes(const std::vector<uint64_t>& addresses) {
  std::vector<uint8_t> out(addresses.size() * 8);
  std::memcpy(out.data(), addresses.data(), out.size());
  return out;
}

}  // namespace

TEST_CASE("unwind: callchain walk: frames as given, the first an exact pc", "[walker][callchain]") {
  const ProcessMaps maps = fake_code_maps();
  const auto chain = chain_bytes({0x401000, 0x402000, 0x403000});
  CallchainWalk walk(256);
  WalkResult out;
  walk.walk(Bytes(chain.data(), chain.size()), maps, out);
  REQUIRE(out.frames.size() == 3);
  CHECK(out.frames[0].pc == 0x401000);
  CHECK(out.frames[0].flags == kFrameExactPc);
  CHECK(out.frames[0].stepper == StepperKind::kSample);
  CHECK(out.frames[2].pc == 0x403000);
  CHECK(out.frames[2].flags == 0);
  CHECK(out.frames[2].stepper == StepperKind::kFramePointer);
  // No entry reached: the kernel's frame-pointer walk stopped short.
  CHECK(out.end == WalkEnd::kBadFramePointer);
}

TEST_CASE("unwind: callchain walk: ends at an unmapped address and at the depth limit", "[walker][callchain]") {
  const ProcessMaps maps = fake_code_maps();
  const auto chain = chain_bytes({0x401000, 0x402000, 0x9999, 0x403000});
  CallchainWalk walk(256);
  WalkResult out;
  walk.walk(Bytes(chain.data(), chain.size()), maps, out);
  CHECK(out.frames.size() == 2);
  CHECK(out.end == WalkEnd::kUnmappedPc);
  CallchainWalk shallow(1);
  shallow.walk(Bytes(chain.data(), chain.size()), maps, out);
  CHECK(out.frames.size() == 1);
  CHECK(out.end == WalkEnd::kMaxDepth);
  walk.walk(Bytes(), maps, out);
  CHECK(out.frames.empty());
  CHECK(out.end == WalkEnd::kNoRegisters);
}

TEST_CASE("unwind: callchain walk: complete at the program's entry", "[walker][callchain]") {
  BinaryCache binaries;
  auto maps = self_maps(binaries);
  const Mapping* exe = nullptr;
  for (const Mapping& m : maps->mappings())
    if (m.binary && m.binary->function_named("_start") && m.path.find("swprof_unwind_tests") != std::string::npos) exe = &m;
  REQUIRE(exe);
  const uint64_t start = exe->binary->function_named("_start")->start + exe->bias;
  const uint64_t here = reinterpret_cast<uint64_t>(&capture_self) + 1;
  // The entry, then a frame beyond it that the walk leaves out.
  const auto chain = chain_bytes({here, start + 4, here});
  CallchainWalk walk(256);
  WalkResult out;
  walk.walk(Bytes(chain.data(), chain.size()), *maps, out);
  CHECK(out.frames.size() == 2);
  CHECK(out.complete());
}
