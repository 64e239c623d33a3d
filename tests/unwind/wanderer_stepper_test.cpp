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

TEST_CASE("wanderer: the calls through a register or memory that end right before a return address", "[wanderer]") {
  using B = std::array<uint8_t, 7>;
  const auto ends = [](B b) { return WandererStepper::ends_with_indirect_call(b); };
  CHECK(ends(B{0x90, 0x90, 0x90, 0x90, 0x90, 0xff, 0xd2}));  // call *%rdx
  CHECK(ends(B{0x90, 0x90, 0x90, 0x90, 0x41, 0xff, 0xd3}));  // call *%r11
  CHECK(ends(B{0x90, 0x90, 0x90, 0x90, 0x90, 0xff, 0x12}));  // call *(%rdx)
  CHECK(ends(B{0x90, 0x90, 0x90, 0x90, 0xff, 0x55, 0x08}));  // call *0x8(%rbp)
  CHECK(ends(B{0x90, 0xff, 0x90, 0x00, 0x01, 0x00, 0x00}));  // call *0x100(%rax)
  CHECK(ends(B{0x90, 0xff, 0x15, 0x10, 0x20, 0x00, 0x00}));  // call *0x2010(%rip)
  CHECK(ends(B{0x90, 0x90, 0x90, 0xff, 0x54, 0x24, 0x08}));  // call *0x8(%rsp)
  CHECK(ends(B{0xff, 0x94, 0x24, 0x00, 0x01, 0x00, 0x00}));  // call *0x100(%rsp)
  // Not a call where it ends: one byte too early, a jmp through a register, a ret.
  CHECK_FALSE(ends(B{0x90, 0x90, 0x90, 0x90, 0xff, 0xd2, 0x90}));
  CHECK_FALSE(ends(B{0x90, 0x90, 0x90, 0x90, 0x90, 0xff, 0xe2}));
  CHECK_FALSE(ends(B{0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0xc3}));
}

namespace {

[[gnu::noinline]] uint64_t wanderer_callee() { return reinterpret_cast<uint64_t>(__builtin_return_address(0)); }

}  // namespace

TEST_CASE("wanderer: a return address after a call through a register follows a call", "[wanderer]") {
  uint64_t (*volatile through)() = wanderer_callee;
  const uint64_t ret = through();
  BinaryCache binaries;
  const std::shared_ptr<ProcessMaps> maps = self_maps(binaries);
  const Mapping* m = maps->find(ret - 1);
  REQUIRE(m);
  CHECK(WandererStepper::follows_indirect_call(*m, ret));
  CHECK(WandererStepper::follows_call(*m, ret));
}
