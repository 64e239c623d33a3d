// The Go stepper on a Go function table written by the builder
// (tests/support/go_pclntab_builder.h) inside an ELF image, over a fake
// stack: frameless leaves, framed bodies, both prologue forms, bottoms, the
// signal trampoline, stack switches, pcs that are not Go's, and walks whose
// second run comes from the rule cache.

#include "unwind/go_stepper.h"

#include <catch2/catch.hpp>
#include <cstring>

#include "binary/elf_binary.h"
#include "support/go_pclntab_builder.h"
#include "support/fake_maps.h"
#include "unwind/walker.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

constexpr uint64_t kStack = 0x7ffd00001000;
constexpr uint64_t kOldBp = 0x7ffd0000ab00;

// sample_go_table plus main.oldframed, with Go <= 1.20's prologue:
// sub rsp, 24; mov [rsp+16], rbp; lea rbp, [rsp+16]; ...; mov rbp, [rsp+16]; add rsp, 24; ret.
GoTableSpec stepper_table() {
  GoTableSpec spec = sample_go_table(GoPclntab::Layout::kGo118);
  spec.funcs.push_back({"main.oldframed", 32, {{4, 0}, {26, 24}, {2, 0}}, {{32, 50}}, "old.go"});
  spec.code.resize(112, 0xcc);
  const uint8_t prologue[] = {0x48, 0x83, 0xec, 0x18, 0x48, 0x89, 0x6c, 0x24, 0x10, 0x48, 0x8d, 0x6c, 0x24, 0x10};
  spec.code.insert(spec.code.end(), prologue, prologue + sizeof prologue);
  spec.code.resize(112 + 32, 0x90);
  return spec;
}

struct GoFixture {
  GoElfImage image = build_go_elf(stepper_table(), true);
  std::shared_ptr<ElfBinary> binary = ElfBinary::from_image("go_fake", image.bytes);
  ProcessMaps maps;
  std::vector<uint64_t> words = std::vector<uint64_t>(64, 0);
  uint64_t leaf = 0, framed = 0, goexit = 0, sigtramp = 0, systemstack = 0, oldframed = 0;

  GoFixture() {
    REQUIRE(binary);
    Mapping m;
    m.start = image.text_start;
    m.end = image.text_start + 0x1000;
    m.file_offset = 0x1000;
    m.path = "/bin/go_fake";
    m.binary = binary;
    m.executable = true;
    maps.add(m);
    leaf = image.text_start;
    framed = leaf + 32;
    goexit = framed + 32;
    sigtramp = goexit + 16;
    systemstack = sigtramp + 16;
    oldframed = systemstack + 16;
  }
  void put(uint64_t addr, uint64_t value) { words.at((addr - kStack) / 8) = value; }
  BufferMemory stack() const {
    return BufferMemory(kStack, Bytes(reinterpret_cast<const uint8_t*>(words.data()), words.size() * 8));
  }
};

struct Stepped {
  StepAnswer answer;
  Registers caller;
};

Stepped step(GoStepper& stepper, GoFixture& fx, uint64_t pc, uint64_t sp, bool exact, uint64_t bp = kOldBp) {
  Registers regs = regs_at(pc, sp);
  regs.set(kRbp, bp);
  const BufferMemory stack = fx.stack();
  const FrameAddress at = exact ? FrameAddress::exact_pc(pc) : FrameAddress::return_address(pc);
  const StepInput in{regs, stack, fx.maps.find(at.lookup_pc()), fx.maps, at, exact ? 0 : 1};
  Stepped out;
  out.answer = stepper.step(in, out.caller);
  return out;
}

}  // namespace

TEST_CASE("go_stepper: a frameless leaf: CFA = rsp + 8, rbp untouched, a fast cacheable rule") {
  GoFixture fx;
  GoStepper stepper;
  fx.put(kStack, fx.framed + 20);
  for (uint64_t pc = fx.leaf; pc < fx.leaf + 32; pc += 5) {
    const Stepped s = step(stepper, fx, pc, kStack, true);
    REQUIRE(s.answer.kind == StepKind::kCaller);
    CHECK(s.answer.cache == AnswerCache::kRule);
    CHECK(s.answer.rule.kind == RuleKind::kCfaSp);
    CHECK(s.answer.rule.cfa_offset == 8);
    CHECK(s.caller.pc() == fx.framed + 20);
    CHECK(s.caller.sp() == kStack + 8);
    CHECK(s.caller.bp() == kOldBp);
  }
}

TEST_CASE("go_stepper: a framed body restores rbp from CFA-16") {
  GoFixture fx;
  GoStepper stepper;
  // framed at entry+20 (a return address: looked up at entry+19): d = 32, CFA = sp + 40.
  fx.put(kStack + 24, 0x7ffd0000cafe);
  fx.put(kStack + 32, fx.goexit + 5);
  const Stepped s = step(stepper, fx, fx.framed + 20, kStack, false, kStack + 24);
  REQUIRE(s.answer.kind == StepKind::kCaller);
  CHECK(s.answer.rule.kind == RuleKind::kCfaSpRestoreBp);
  CHECK(s.answer.rule.cfa_offset == 40);
  CHECK(s.answer.rule.bp_offset == -16);
  CHECK(s.caller.pc() == fx.goexit + 5);
  CHECK(s.caller.sp() == kStack + 40);
  CHECK(s.caller.bp() == 0x7ffd0000cafe);
}

TEST_CASE("go_stepper: the prologue window, in both prologue forms") {
  GoFixture fx;
  GoStepper stepper;
  // push rbp; mov rbp, rsp (1.21+): at the entry nothing is pushed yet.
  fx.put(kStack, fx.goexit + 5);
  Stepped s = step(stepper, fx, fx.framed, kStack, true);
  CHECK(s.answer.rule.kind == RuleKind::kCfaSp);
  CHECK(s.answer.rule.cfa_offset == 8);
  CHECK(s.caller.bp() == kOldBp);
  // After push rbp: rbp saved at rsp = CFA-16.
  fx.put(kStack, 0x7ffd0000beef);
  fx.put(kStack + 8, fx.goexit + 5);
  s = step(stepper, fx, fx.framed + 1, kStack, true);
  CHECK(s.answer.rule.kind == RuleKind::kCfaSpRestoreBp);
  CHECK(s.answer.rule.cfa_offset == 16);
  CHECK(s.caller.pc() == fx.goexit + 5);
  CHECK(s.caller.bp() == 0x7ffd0000beef);
  // sub rsp, 24; mov [rsp+16], rbp (<= 1.20): after the sub, rbp is not stored yet.
  fx.put(kStack + 24, fx.goexit + 5);
  s = step(stepper, fx, fx.oldframed + 4, kStack, true);
  CHECK(s.answer.rule.kind == RuleKind::kCfaSp);
  CHECK(s.answer.rule.cfa_offset == 32);
  CHECK(s.caller.bp() == kOldBp);
  fx.put(kStack + 16, 0x7ffd0000f00d);
  s = step(stepper, fx, fx.oldframed + 9, kStack, true);
  CHECK(s.answer.rule.kind == RuleKind::kCfaSpRestoreBp);
  CHECK(s.caller.pc() == fx.goexit + 5);
  CHECK(s.caller.sp() == kStack + 32);
  CHECK(s.caller.bp() == 0x7ffd0000f00d);
}

TEST_CASE("go_stepper: goexit is the bottom, the signal trampoline is not, a stack switch ends the walk") {
  GoFixture fx;
  GoStepper stepper;
  Stepped s = step(stepper, fx, fx.goexit + 5, kStack, false);
  CHECK(s.answer.kind == StepKind::kBottom);
  CHECK(s.answer.cache == AnswerCache::kRule);
  fx.put(kStack, fx.framed + 20);
  s = step(stepper, fx, fx.sigtramp + 3, kStack, true);
  CHECK(s.answer.kind == StepKind::kCaller);
  CHECK(s.caller.pc() == fx.framed + 20);
  s = step(stepper, fx, fx.systemstack + 5, kStack, false);
  CHECK(s.answer.kind == StepKind::kEnd);
  CHECK(s.answer.failure == WalkEnd::kStackSwitch);
  CHECK(s.answer.cache == AnswerCache::kRule);
  // Sampled at its first instruction, it has not switched yet: pcsp steps it.
  s = step(stepper, fx, fx.systemstack, kStack, true);
  CHECK(s.answer.kind == StepKind::kCaller);
  CHECK(s.caller.pc() == fx.framed + 20);
  // Past an instruction that is not decoded as keeping rsp (int3 here): the end.
  s = step(stepper, fx, fx.systemstack + 1, kStack, true);
  CHECK(s.answer.kind == StepKind::kEnd);
}

TEST_CASE("go_stepper: pcs outside the Go functions, or without a binary, are not mine") {
  GoFixture fx;
  GoStepper stepper;
  const Stepped s = step(stepper, fx, fx.image.text_start + 0x800, kStack, true);
  CHECK(s.answer.kind == StepKind::kNotMine);
  CHECK(s.answer.cache == AnswerCache::kNotMineByPc);
  ProcessMaps bare = fake_code_maps();
  Registers regs = regs_at(0x401000, kStack);
  const BufferMemory stack = fx.stack();
  const StepInput in{regs, stack, bare.find(0x401000), bare, FrameAddress::exact_pc(0x401000), 0};
  Registers caller;
  CHECK(stepper.step(in, caller).kind == StepKind::kNotMine);
}

TEST_CASE("go_stepper: walks leaf -> framed -> goexit, the second from the rule cache, a stack switch ends one") {
  GoFixture fx;
  StepperList list;
  list.add(std::make_unique<GoStepper>());
  Walker walker(std::move(list));
  // leaf (frameless) returns into framed at +20 (d = 32), which returns into goexit.
  fx.put(kStack, fx.framed + 20);
  fx.put(kStack + 8 + 24, kStack + 0x100);
  fx.put(kStack + 8 + 32, fx.goexit + 5);
  Registers regs = regs_at(fx.leaf + 4, kStack);
  regs.set(kRbp, kStack + 8 + 24);
  const BufferMemory stack = fx.stack();
  for (int pass = 0; pass < 2; ++pass) {
    const uint64_t asked = walker.stepper_asks();
    const WalkResult r = walker.walk(regs, stack, fx.maps);
    CHECK(r.end == WalkEnd::kBottom);
    REQUIRE(r.frames.size() == 3);
    CHECK(r.frames[1].pc == fx.framed + 20);
    CHECK(r.frames[1].stepper == StepperKind::kGo);
    CHECK(r.frames[2].pc == fx.goexit + 5);
    CHECK(r.frames[2].sp == kStack + 48);
    if (pass == 1) CHECK(walker.stepper_asks() == asked);
  }
  fx.put(kStack, fx.systemstack + 5);
  const BufferMemory switched = fx.stack();
  for (int pass = 0; pass < 2; ++pass) {
    const WalkResult r = walker.walk(regs, switched, fx.maps);
    CHECK(r.end == WalkEnd::kStackSwitch);
    CHECK(r.frames.size() == 2);
    CHECK_FALSE(r.complete());
  }
}
