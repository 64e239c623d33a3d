// A sample inside execve: the registers are the old program's, the address
// space the new one, with no code at the pc and no stack copied at sp.

#include <catch2/catch.hpp>

#include "support/fake_maps.h"
#include "unwind/walker.h"
#include "unwind/wanderer_stepper.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

StepperList scanning_list() {
  StepperList list;
  list.add(std::make_unique<WandererStepper>());
  return list;
}

const std::vector<uint8_t> kNoStack;
const std::vector<uint8_t> kSomeStack(64, 0);

}  // namespace

TEST_CASE("walker: a pc in no mapping with nothing copied at sp is a sample inside execve", "[walker]") {
  Walker w(scanning_list());
  const BufferMemory empty(0x7000, Bytes(kNoStack.data(), 0));
  SECTION("no mapping at all yet") {
    const WalkResult r = w.walk(regs_at(0x7f0000001000, 0x7000), empty, ProcessMaps{});
    CHECK(r.end == WalkEnd::kNoMappingsYet);
    CHECK(r.frames.size() == 1);
    CHECK(std::string(walk_end_name(r.end)) == "in execve (no mappings yet)");
  }
  SECTION("the new program's first mapping, the old pc elsewhere") {
    CHECK(w.walk(regs_at(0x7f0000001000, 0x7000), empty, fake_code_maps()).end == WalkEnd::kNoMappingsYet);
  }
  SECTION("a pc in a known mapping is not") {
    CHECK(w.walk(regs_at(0x401000, 0x7000), empty, fake_code_maps()).end != WalkEnd::kNoMappingsYet);
  }
  SECTION("a stack copied at sp is not") {
    const BufferMemory stack(0x7000, Bytes(kSomeStack.data(), kSomeStack.size()));
    CHECK(w.walk(regs_at(0x7f0000001000, 0x7000), stack, fake_code_maps()).end != WalkEnd::kNoMappingsYet);
  }
}
