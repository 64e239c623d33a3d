#include "unwind/bottom_stepper.h"

#include <catch2/catch.hpp>

#include "binary/x86_decoder.h"
#include "support/fake_maps.h"
#include "support/self_snapshot.h"
#include "support/stepped.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

const std::vector<uint8_t> kNoStack;
const BufferMemory kEmptyStack(0x7000, Bytes(kNoStack.data(), 0));

}  // namespace

TEST_CASE("bottom stepper stops at the program entry and thread entry", "[walker][bottom]") {
  BinaryCache binaries;
  auto maps = self_maps(binaries);
  BottomStepper stepper;
  Registers zero = regs_at(0, 0x7000);
  CHECK(step(stepper, StepInput{zero, kEmptyStack, nullptr, *maps, FrameAddress::of(zero.pc(), false), 3}).kind == StepKind::kBottom);
  // This test executable's entry point (_start).
  const Mapping* exe = nullptr;
  for (const Mapping& m : maps->mappings())
    if (m.binary && m.binary->function_named("_start") && m.path.find("swprof_unwind_tests") != std::string::npos) exe = &m;
  REQUIRE(exe);
  const uint64_t start = exe->binary->function_named("_start")->start + exe->bias;
  Registers in_start = regs_at(start + 4, 0x7000);
  CHECK(step(stepper, StepInput{in_start, kEmptyStack, exe, *maps, FrameAddress::of(in_start.pc(), false), 5}).kind == StepKind::kBottom);
  Registers elsewhere = regs_at(reinterpret_cast<uint64_t>(&capture_self) + 1, 0x7000);
  CHECK(step(stepper, StepInput{elsewhere, kEmptyStack, maps->find(elsewhere.pc() - 1), *maps, FrameAddress::of(elsewhere.pc(), false), 1}).kind ==
        StepKind::kNotMine);
}

TEST_CASE("bottom stepper stops in the dynamic loader's entry code, which has no symbols", "[walker][bottom]") {
  // ld.so's entry calls _dl_start, then (as _dl_start_user) _dl_init, which
  // runs the libraries' constructors, then jumps to the program's entry.
  BinaryCache binaries;
  auto maps = self_maps(binaries);
  const Mapping* ld = nullptr;
  for (const Mapping& m : maps->mappings())
    if (m.executable && m.binary && m.path.find("/ld-linux") != std::string::npos) ld = &m;
  REQUIRE(ld);
  const ElfBinary& binary = *ld->binary;
  REQUIRE(binary.entry() != 0);
  X86Decoder decoder;
  const Bytes code = binary.code_at(binary.entry(), 256);
  std::vector<uint64_t> returns;  // return addresses of the entry code's calls
  for (uint64_t at = binary.entry();;) {
    const X86Insn insn = decoder.decode(code, binary.entry(), at);
    REQUIRE(insn.op != X86Op::kInvalid);
    at = insn.end();
    if (insn.op == X86Op::kCall) returns.push_back(at);
    if (!insn.falls_through()) break;
  }
  REQUIRE(returns.size() >= 2);
  BottomStepper stepper;
  for (uint64_t ra : returns) {
    Registers r = regs_at(ra + ld->bias, 0x7000);
    CHECK(step(stepper, StepInput{r, kEmptyStack, ld, *maps, FrameAddress::of(r.pc(), false), 4}).kind == StepKind::kBottom);
  }
  // Past the entry code: ld.so's own functions are not the bottom.
  Registers after = regs_at(returns.back() + ld->bias + 64, 0x7000);
  CHECK(step(stepper, StepInput{after, kEmptyStack, ld, *maps, FrameAddress::of(after.pc(), false), 4}).kind == StepKind::kNotMine);
}

