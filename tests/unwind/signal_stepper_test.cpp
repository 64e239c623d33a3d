#include "unwind/signal_stepper.h"

#include <catch2/catch.hpp>

#include <cstring>

#include "support/fake_maps.h"
#include "support/self_snapshot.h"
#include "support/stepped.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// Finds the rt_sigreturn trampoline in this process's libc by its bytes.
std::optional<uint64_t> find_restore_rt(const ProcessMaps& maps) {
  static constexpr uint8_t kPattern[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};
  for (const Mapping& m : maps.mappings()) {
    if (!m.binary || m.path.find("libc.so") == std::string::npos) continue;
    const uint64_t lo = m.to_vaddr(m.start);
    Bytes code = m.binary->code_at(lo, m.end - m.start);
    for (size_t i = 0; i + sizeof kPattern <= code.size(); ++i)
      if (std::memcmp(code.data() + i, kPattern, sizeof kPattern) == 0) return m.start + i;
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("signal stepper rebuilds the interrupted registers from the ucontext", "[walker][signal]") {
  BinaryCache binaries;
  auto maps = self_maps(binaries);
  auto restore_rt = find_restore_rt(*maps);
  REQUIRE(restore_rt);
  // A fake signal frame: ucontext at sp, gregs from byte 40.
  std::vector<uint64_t> words(64, 0);
  const uint64_t sp = 0x7ff000;
  words[5 + 10] = 0x7ff400;   // RBP
  words[5 + 15] = 0x7ff800;   // RSP
  words[5 + 16] = 0x401234;   // RIP
  words[5 + 11] = 0xb0b;      // RBX
  BufferMemory stack(sp, Bytes(reinterpret_cast<const uint8_t*>(words.data()), words.size() * 8));
  Registers r = regs_at(*restore_rt, sp);
  SignalStepper stepper;
  Stepped out = step(stepper, StepInput{r, stack, maps->find(*restore_rt - 1), *maps, FrameAddress::of(r.pc(), false), 1});
  REQUIRE(out.kind == StepKind::kCaller);
  CHECK(out.caller_flags & kFrameSignal);
  CHECK(out.caller.pc() == 0x401234);
  CHECK(out.caller.sp() == 0x7ff800);
  CHECK(out.caller.bp() == 0x7ff400);
  CHECK(out.caller.get(kRbx) == 0xb0b);

  SECTION("a ucontext cut off by the end of the copied stack") {
    BufferMemory short_stack(sp, Bytes(reinterpret_cast<const uint8_t*>(words.data()), 100));
    Stepped cut = step(stepper, StepInput{r, short_stack, maps->find(*restore_rt - 1), *maps, FrameAddress::of(r.pc(), false), 1});
    CHECK(cut.kind == StepKind::kFailed);
    CHECK(cut.failure == WalkEnd::kStackExhausted);
  }
  SECTION("a sample in the trampoline itself: at its syscall, or in the kernel during rt_sigreturn") {
    for (uint64_t offset : {7, 9}) {
      Registers inside = regs_at(*restore_rt + offset, sp);
      Stepped in_sigreturn = step(stepper, StepInput{inside, stack, maps->find(*restore_rt), *maps,
                                                     FrameAddress::exact_pc(inside.pc()), 0});
      REQUIRE(in_sigreturn.kind == StepKind::kCaller);
      CHECK(in_sigreturn.caller.pc() == 0x401234);
      CHECK(in_sigreturn.caller.sp() == 0x7ff800);
      // As a return address it is no signal frame: nothing calls the trampoline.
      CHECK(step(stepper, StepInput{inside, stack, maps->find(*restore_rt), *maps,
                                    FrameAddress::return_address(inside.pc()), 1})
                .kind == StepKind::kNotMine);
    }
  }
  SECTION("any other pc is not a signal frame") {
    Registers other = regs_at(*restore_rt + 1, sp);
    CHECK(step(stepper, StepInput{other, stack, maps->find(*restore_rt), *maps, FrameAddress::of(other.pc(), false), 1}).kind == StepKind::kNotMine);
  }
}

