#include "unwind/bottom_stepper.h"

#include <catch2/catch.hpp>

#include "binary/x86_decoder.h"
#include "support/elf_files.h"
#include "support/fake_maps.h"
#include "support/self_snapshot.h"
#include "support/stepped.h"
#include "support/sym_fixtures.h"

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


TEST_CASE("bottom stepper: a stripped program's entry code is found without discovering its functions",
          "[walker][bottom]") {
  // Discovery over a whole stripped binary would be paid by every report of
  // it; the entry code ends at its stop instruction (hlt after the call to
  // __libc_start_main) before any FDE's function begins, as before.
  for (const std::string& path : {program_file("known_static.stripped"), program_file("sym_target.stripped")}) {
    INFO(path);
    auto binary = open_binary(path);
    REQUIRE(binary->functions().empty());
    REQUIRE(binary->entry() != 0);
    ProcessMaps maps;
    Mapping m;
    m.start = 0x10000000;
    m.end = m.start + 0x10000000;
    m.executable = true;
    m.path = path;
    m.binary = binary;
    m.bias = m.start;
    maps.add(m);
    const Mapping* mapping = maps.find(m.start + binary->entry());
    REQUIRE(mapping);
    BottomStepper stepper;
    std::vector<uint64_t> bottoms;  // vaddrs near the entry the stepper takes for the bottom
    for (uint64_t vaddr = binary->entry(); vaddr < binary->entry() + 300; ++vaddr) {
      Registers r = regs_at(vaddr + mapping->bias, 0x7000);
      if (step(stepper, StepInput{r, kEmptyStack, mapping, maps, FrameAddress::of(r.pc(), true), 1}).kind ==
          StepKind::kBottom)
        bottoms.push_back(vaddr);
    }
    CHECK_FALSE(binary->function_starts_discovered());
    // What discovery's function starts would have bounded the entry code with.
    X86Decoder decoder;
    const Bytes code = binary->code_at(binary->entry(), 256);
    std::vector<uint64_t> expected;
    for (uint64_t at = binary->entry();;) {
      if (at != binary->entry()) {
        const auto d = binary->function_starts().at(at);
        if (d && d->start == at) break;
      }
      const X86Insn insn = decoder.decode(code, binary->entry(), at);
      REQUIRE(insn.op != X86Op::kInvalid);
      for (uint64_t v = at; v < insn.end(); ++v) expected.push_back(v);
      at = insn.end();
      if (!insn.falls_through()) break;
    }
    CHECK(expected.size() > 8);
    CHECK(bottoms == expected);
  }
}
