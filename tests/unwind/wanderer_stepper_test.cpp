#include "unwind/wanderer_stepper.h"

#include <catch2/catch.hpp>

#include "support/fake_maps.h"
#include "support/self_snapshot.h"
#include "support/stepped.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("wanderer finds the next return address on the stack and flags it as a guess", "[walker][wanderer]") {
  SelfSnapshot snap = capture_self();
  // capture_self's return address is somewhere in its frame: the wanderer
  // must find a word that follows a call and lies in code.
  WandererStepper stepper;
  auto mem = snap.memory();
  Stepped out = step(stepper, StepInput{snap.regs, mem, snap.maps->find(snap.regs.pc()), *snap.maps, FrameAddress::of(snap.regs.pc(), true), 0});
  REQUIRE(out.kind == StepKind::kCaller);
  CHECK(out.caller_flags & kFrameGuess);
  const Mapping* m = snap.maps->find(out.caller.pc() - 1);
  REQUIRE(m);
  CHECK(m->executable);
  CHECK(WandererStepper::follows_call(*m, out.caller.pc()));
  // A stack of zeros has no return address in it.
  std::vector<uint8_t> zeros(512, 0);
  BufferMemory zero_stack(0x7000, Bytes(zeros.data(), zeros.size()));
  Registers r = regs_at(snap.regs.pc(), 0x7000);
  CHECK(step(stepper, StepInput{r, zero_stack, nullptr, *snap.maps, FrameAddress::of(r.pc(), true), 0}).kind == StepKind::kFailed);
}
