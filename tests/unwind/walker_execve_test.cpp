// A sample inside execve: the registers are the old program's, the address
// space the new one, with no code at the pc and no stack copied at sp.

#include <catch2/catch.hpp>

#include "support/fake_maps.h"
#include "support/sym_fixtures.h"
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

namespace {

constexpr uint64_t kLibcBase = 0x7f0000000000;
const char* const kLibc = testing::kLibcPath;


}  // namespace

// Until the exec record is replayed, the maps are still the old program's:
// its pc is mapped, right after the `syscall` of execve, and nothing was
// copied at sp (the kernel copied from the new, still empty, address space).
TEST_CASE("walker: the old program's pc right after execve's syscall with nothing copied at sp is inside execve",
          "[walker]") {
  BinaryCache binaries;
  const ProcessMaps maps = testing::load_like_loader(binaries, kLibc, kLibcBase);
  const uint64_t pc = kLibcBase + testing::after_execve_syscall(*maps.find(kLibcBase + 0x30000)->binary);
  Walker w(scanning_list());
  const BufferMemory empty(0x7000, Bytes(kNoStack.data(), 0));
  const WalkResult r = w.walk(regs_at(pc, 0x7000), empty, maps);
  CHECK(r.end == WalkEnd::kNoMappingsYet);
  CHECK(r.frames.size() == 1);
  SECTION("with its stack copied it is a system call like any other") {
    const BufferMemory stack(0x7000, Bytes(kSomeStack.data(), kSomeStack.size()));
    CHECK(w.walk(regs_at(pc, 0x7000), stack, maps).end != WalkEnd::kNoMappingsYet);
  }
  SECTION("a pc not after a syscall (a fault growing the stack) is not") {
    CHECK(w.walk(regs_at(pc - 2, 0x7000), empty, maps).end != WalkEnd::kNoMappingsYet);
  }
}
