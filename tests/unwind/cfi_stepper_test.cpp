#include "unwind/cfi_stepper.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <vector>

#include "support/self_snapshot.h"
#include "support/stepped.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// CfiStepper::apply_into with its caller's registers, as one value.
Stepped apply_cfi(const CfiRule& rule, const Registers& regs, const Memory& stack) {
  Registers caller;
  const Applied a = CfiStepper::apply_into(rule, regs, stack, caller);
  return stepped(a, caller);
}


constexpr uint64_t kStackBase = 0x7ffd0000;

// A fake copied stack: 64 words at kStackBase.
struct FakeStack {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(64 * 8);
  void put(uint64_t addr, uint64_t value) {
    REQUIRE(addr >= kStackBase);
    REQUIRE(addr + 8 <= kStackBase + bytes.size());
    std::memcpy(bytes.data() + (addr - kStackBase), &value, 8);
  }
  BufferMemory memory() const { return BufferMemory(kStackBase, Bytes(bytes.data(), bytes.size())); }
};

CfiRule rule_with_cfa(CfaRule cfa, uint8_t reg, int32_t off) {
  CfiRule r;
  r.cfa = cfa;
  r.cfa_reg = reg;
  r.cfa_offset = off;
  r.saved[kSlotRa] = SavedRule::kAtCfa;
  r.saved_offset[kSlotRa] = -8;
  return r;
}

void save(CfiRule& r, SavedSlot slot, SavedRule how, int16_t off = 0) {
  r.saved[slot] = how;
  r.saved_offset[slot] = off;
}

}  // namespace

TEST_CASE("applying a rule: rsp-based CFA, saved rbp, callee-saved carried, caller-saved dropped", "[cfi]") {
  FakeStack stack;
  const uint64_t rsp = kStackBase + 0x40;
  const uint64_t cfa = rsp + 16;
  stack.put(cfa - 8, 0x401234);  // return address
  stack.put(cfa - 16, 0xb00b);   // saved rbp
  CfiRule rule = rule_with_cfa(CfaRule::kRspOffset, kRsp, 16);
  save(rule, kSlotRbp, SavedRule::kAtCfa, -16);
  Registers regs;
  regs.set(kRip, 0x400100);
  regs.set(kRsp, rsp);
  regs.set(kRbp, 0x1111);
  regs.set(kRbx, 0x2222);
  regs.set(kR12, 0x3333);
  regs.set(kRax, 0x4444);
  regs.set(kRdi, 0x5555);

  Stepped out = apply_cfi(rule, regs, stack.memory());
  REQUIRE(out.kind == StepKind::kCaller);
  CHECK(out.caller.pc() == 0x401234);
  CHECK(out.caller.sp() == cfa);
  CHECK(out.caller.bp() == 0xb00b);
  CHECK(out.caller.get(kRbx) == 0x2222);  // same value
  CHECK(out.caller.get(kR12) == 0x3333);
  CHECK_FALSE(out.caller.has(kR13));  // same value of an unknown register stays unknown
  CHECK_FALSE(out.caller.has(kRax));  // caller-saved
  CHECK_FALSE(out.caller.has(kRdi));
  CHECK(out.caller_flags == 0);
}

TEST_CASE("applying a rule: rbp-based CFA needs a known rbp", "[cfi]") {
  FakeStack stack;
  const uint64_t rbp = kStackBase + 0x80;
  stack.put(rbp + 8, 0x401000);
  stack.put(rbp, kStackBase + 0xc0);
  CfiRule rule = rule_with_cfa(CfaRule::kRbpOffset, kRbp, 16);
  save(rule, kSlotRbp, SavedRule::kAtCfa, -16);
  Registers regs;
  regs.set(kRip, 0x400100);
  regs.set(kRsp, kStackBase);
  regs.set(kRbp, rbp);
  Stepped out = apply_cfi(rule, regs, stack.memory());
  REQUIRE(out.kind == StepKind::kCaller);
  CHECK(out.caller.pc() == 0x401000);
  CHECK(out.caller.sp() == rbp + 16);
  CHECK(out.caller.bp() == kStackBase + 0xc0);

  regs.clear(kRbp);
  out = apply_cfi(rule, regs, stack.memory());
  CHECK(out.kind == StepKind::kFailed);
  CHECK(out.failure == WalkEnd::kNoUnwindInfo);
}

TEST_CASE("applying a rule: reads past the copied stack end the walk as stack exhausted", "[cfi]") {
  FakeStack stack;
  const uint64_t end = kStackBase + stack.bytes.size();
  Registers regs;
  regs.set(kRip, 0x400100);
  regs.set(kRsp, end - 8);  // the CFA is past the end: the RA at CFA-8 is not copied
  CfiRule rule = rule_with_cfa(CfaRule::kRspOffset, kRsp, 16);
  Stepped out = apply_cfi(rule, regs, stack.memory());
  CHECK(out.kind == StepKind::kFailed);
  CHECK(out.failure == WalkEnd::kStackExhausted);

  // The RA is readable but a saved register is not (as in an epilogue after
  // the register was popped): the step succeeds and that register is unknown.
  regs.set(kRsp, end - 16);
  regs.set(kR12, 0x1212);
  save(rule, kSlotR12, SavedRule::kAtCfa, 64);
  out = apply_cfi(rule, regs, stack.memory());
  CHECK(out.kind == StepKind::kCaller);
  CHECK(out.caller.has(kRip));
  CHECK_FALSE(out.caller.has(kR12));

  // Below the copied stack too.
  regs.set(kRsp, kStackBase - 64);
  out = apply_cfi(rule_with_cfa(CfaRule::kRspOffset, kRsp, 16), regs, stack.memory());
  CHECK(out.failure == WalkEnd::kStackExhausted);
}

TEST_CASE("applying a rule: undefined return address is the bottom of the stack", "[cfi]") {
  FakeStack stack;
  CfiRule rule = rule_with_cfa(CfaRule::kRspOffset, kRsp, 8);
  save(rule, kSlotRa, SavedRule::kUndefined);
  Registers regs;
  regs.set(kRip, 0x400100);
  regs.set(kRsp, kStackBase);
  CHECK(apply_cfi(rule, regs, stack.memory()).kind == StepKind::kBottom);
}

TEST_CASE("applying a rule: DRAP, CFA through another register and *(rbp-8)", "[cfi]") {
  FakeStack stack;
  // After `lea 8(%rsp),%r10; and $-32,%rsp; push -8(%r10); push %rbp; mov %rsp,%rbp; push %r10`:
  const uint64_t cfa = kStackBase + 0x100;
  const uint64_t rbp = kStackBase + 0x40;
  stack.put(cfa - 8, 0x402000);  // return address
  stack.put(rbp, 0xbbbb);        // the caller's rbp at *(rbp+0)
  stack.put(rbp - 8, cfa);       // the saved r10 = CFA
  Registers regs;
  regs.set(kRip, 0x400100);
  regs.set(kRsp, rbp - 8);
  regs.set(kRbp, rbp);

  CfiRule deref = rule_with_cfa(CfaRule::kDerefReg, kRbp, -8);
  save(deref, kSlotRbp, SavedRule::kAtRbp, 0);
  Stepped out = apply_cfi(deref, regs, stack.memory());
  REQUIRE(out.kind == StepKind::kCaller);
  CHECK(out.caller.sp() == cfa);
  CHECK(out.caller.pc() == 0x402000);
  CHECK(out.caller.bp() == 0xbbbb);

  CfiRule via_r10 = rule_with_cfa(CfaRule::kRegOffset, kR10, 0);
  out = apply_cfi(via_r10, regs, stack.memory());
  CHECK(out.kind == StepKind::kFailed);  // r10 is not known in this frame
  CHECK(out.failure == WalkEnd::kNoUnwindInfo);
  regs.set(kR10, cfa);
  out = apply_cfi(via_r10, regs, stack.memory());
  REQUIRE(out.kind == StepKind::kCaller);
  CHECK(out.caller.sp() == cfa);
  CHECK(out.caller.pc() == 0x402000);
}

TEST_CASE("applying a rule: the PLT expression depends on the pc within the entry", "[cfi]") {
  FakeStack stack;
  const uint64_t rsp = kStackBase + 0x20;
  stack.put(rsp, 0x403000);      // RA right at rsp (first instruction: jmp *GOT)
  stack.put(rsp + 8, 0x404000);  // RA one word up (after `push $index`)
  CfiRule plt = rule_with_cfa(CfaRule::kPlt, kRsp, 8);
  plt.plt_threshold = 11;
  Registers regs;
  regs.set(kRsp, rsp);
  regs.set(kRip, 0x26010 + 10);  // (rip & 15) = 10 < 11: CFA = rsp + 8
  Stepped out = apply_cfi(plt, regs, stack.memory());
  REQUIRE(out.kind == StepKind::kCaller);
  CHECK(out.caller.sp() == rsp + 8);
  CHECK(out.caller.pc() == 0x403000);
  regs.set(kRip, 0x26010 + 11);  // >= 11: CFA = rsp + 16
  out = apply_cfi(plt, regs, stack.memory());
  REQUIRE(out.kind == StepKind::kCaller);
  CHECK(out.caller.sp() == rsp + 16);
  CHECK(out.caller.pc() == 0x404000);
}

TEST_CASE("applying a rule: value rules, undefined registers, signal frames, overflow", "[cfi]") {
  FakeStack stack;
  const uint64_t rsp = kStackBase + 0x20;
  stack.put(rsp + 8, 0x405000);
  Registers regs;
  regs.set(kRip, 0x400100);
  regs.set(kRsp, rsp);
  regs.set(kRbp, 0x77);
  regs.set(kR14, 0x88);
  CfiRule rule = rule_with_cfa(CfaRule::kRspOffset, kRsp, 16);
  save(rule, kSlotR13, SavedRule::kValCfa, -32);
  save(rule, kSlotRbp, SavedRule::kUndefined);
  rule.flags = kCfiSignalFrame;
  Stepped out = apply_cfi(rule, regs, stack.memory());
  REQUIRE(out.kind == StepKind::kCaller);
  CHECK(out.caller.get(kR13) == rsp + 16 - 32);
  CHECK_FALSE(out.caller.has(kRbp));
  CHECK(out.caller.get(kR14) == 0x88);
  CHECK(out.caller_flags == (kFrameSignal | kFrameExactPc));

  // Arithmetic that wraps around is an error, not a wrapped address.
  regs.set(kRsp, ~uint64_t{0} - 4);
  out = apply_cfi(rule_with_cfa(CfaRule::kRspOffset, kRsp, 16), regs, stack.memory());
  CHECK(out.kind == StepKind::kFailed);
  regs.set(kRsp, 4);
  out = apply_cfi(rule_with_cfa(CfaRule::kRspOffset, kRsp, -16), regs, stack.memory());
  CHECK(out.kind == StepKind::kFailed);
}

TEST_CASE("the CFI stepper looks rules up by mapping and pc", "[cfi]") {
  auto binary = ElfBinary::open(SWPROF_CFI_FIXTURE);
  REQUIRE(binary);
  const uint64_t load = 0x7f0000000000;
  const ProcessMaps maps = fixture_maps(binary, load);
  const Mapping* mapping = maps.find(load + 0x1000);
  REQUIRE(mapping);
  auto at = [&](const char* name, uint64_t off) {
    const FunctionSymbol* f = binary->function_named(name);
    REQUIRE(f);
    return load + f->start + off;
  };

  FakeStack stack;
  const uint64_t rbp = kStackBase + 0x40;
  stack.put(rbp + 8, 0x401111);  // RA at CFA-8 (CFA = rbp+16)
  stack.put(rbp, 0xb0b0);        // rbp at CFA-16
  stack.put(rbp - 8, 0xb1b1);    // rbx at CFA-24
  const BufferMemory memory = stack.memory();
  Registers regs;
  regs.set(kRsp, rbp - 8);
  regs.set(kRbp, rbp);
  regs.set(kRbx, 0x3);

  CfiStepper stepper(std::make_shared<CfiTableCache>());
  CHECK(stepper.kind() == StepperKind::kCfi);
  auto step = [&](uint64_t pc, bool exact, const Mapping* in_mapping) {
    regs.set(kRip, pc);
    return testing::step(stepper, StepInput{regs, memory, in_mapping, maps, FrameAddress::of(regs.pc(), exact), exact ? 0 : 1});
  };

  SECTION("an exact pc after push %rbx restores rbx from the stack") {
    for (int repeat = 0; repeat < 3; ++repeat) {  // the second and third come from the rule cache
      Stepped out = step(at("cfi_rbp_frame", 5), true, mapping);
      REQUIRE(out.kind == StepKind::kCaller);
      CHECK(out.caller.pc() == 0x401111);
      CHECK(out.caller.sp() == rbp + 16);
      CHECK(out.caller.bp() == 0xb0b0);
      CHECK(out.caller.get(kRbx) == 0xb1b1);
    }
  }
  SECTION("a return address is looked up at pc-1") {
    // pc = +5 as a return address means the call was at +4, before rbx was saved.
    Stepped out = step(at("cfi_rbp_frame", 5), false, mapping);
    REQUIRE(out.kind == StepKind::kCaller);
    CHECK(out.caller.get(kRbx) == 0x3);
  }
  SECTION("no rule, no binary or no mapping: not me") {
    CHECK(step(at("cfi_none", 0), true, mapping).kind == StepKind::kNotMine);
    CHECK(step(at("cfi_unsupported", 1), true, mapping).kind == StepKind::kNotMine);
    CHECK(step(at("cfi_rbp_frame", 0), true, nullptr).kind == StepKind::kNotMine);
    Mapping anonymous = *mapping;
    anonymous.binary.reset();
    CHECK(step(at("cfi_rbp_frame", 0), true, &anonymous).kind == StepKind::kNotMine);
  }
  SECTION("the entry point is the bottom") {
    CHECK(step(at("cfi_entry", 2), true, mapping).kind == StepKind::kBottom);
  }
  SECTION("at the ret after pop %rbp, rbp is the caller's: its slot is below rsp, outside the copy") {
    // The CFI there: CFA = rsp+8, rbp at CFA-16 (GCC and clang emit no
    // restore for a pop). The copy starts at rsp, as perf's does.
    FakeStack top;
    top.put(kStackBase, 0x402222);  // RA at rsp
    const BufferMemory top_memory = top.memory();
    Registers live;
    live.set(kRip, at("cfi_rbp_frame", 8));
    live.set(kRsp, kStackBase);
    live.set(kRbp, 0xcafe);
    for (int repeat = 0; repeat < 3; ++repeat) {
      Stepped out = testing::step(
          stepper, StepInput{live, top_memory, mapping, maps, FrameAddress::exact_pc(live.pc()), 0});
      REQUIRE(out.kind == StepKind::kCaller);
      CHECK(out.caller.pc() == 0x402222);
      CHECK(out.caller.sp() == kStackBase + 8);
      REQUIRE(out.caller.has(kRbp));
      CHECK(out.caller.bp() == 0xcafe);
    }
    // The same row reached as a return address: nothing says rbp was popped.
    live.set(kRip, at("cfi_rbp_frame", 9));
    Stepped out =
        testing::step(stepper, StepInput{live, top_memory, mapping, maps, FrameAddress::return_address(live.pc()), 1});
    REQUIRE(out.kind == StepKind::kCaller);
    CHECK_FALSE(out.caller.has(kRbp));
  }
}

// tests/unwind/fixtures/return_paths.S: rbx kept below rsp, then written
// before the return, stays unknown.
TEST_CASE("the CFI stepper leaves a register unknown when its slot is below rsp and it is written before the return",
          "[cfi]") {
  auto binary = ElfBinary::open(SWPROF_RETURN_PATH_FIXTURE);
  REQUIRE(binary);
  const uint64_t load = 0x7f0000000000;
  const ProcessMaps maps = fixture_maps(binary, load);
  const FunctionSymbol* f = binary->function_named("rp_red_zone");
  REQUIRE(f);
  const Mapping* mapping = maps.find(load + f->start);
  REQUIRE(mapping);
  FakeStack stack;
  stack.put(kStackBase, 0x403333);
  const BufferMemory memory = stack.memory();
  Registers regs;
  regs.set(kRip, load + f->start + 5);  // after the red-zone store: rbx at CFA-24 = rsp-16
  regs.set(kRsp, kStackBase);
  regs.set(kRbx, 1);
  CfiStepper stepper(std::make_shared<CfiTableCache>());
  Stepped out = testing::step(stepper, StepInput{regs, memory, mapping, maps, FrameAddress::exact_pc(regs.pc()), 0});
  REQUIRE(out.kind == StepKind::kCaller);
  CHECK(out.caller.pc() == 0x403333);
  CHECK_FALSE(out.caller.has(kRbx));
}

// A known chain of calls for the self-snapshot test. noinline + noclone keep
// each a frame of its own; the asm after each call keeps it from being a
// tail call.
namespace swprof_cfi_test {

__attribute__((noinline, noclone)) SelfSnapshot cfi_chain_c(int marker) {
  SelfSnapshot s = capture_self(size_t{1} << 20);
  asm volatile("" : : "r"(marker) : "memory");
  return s;
}

__attribute__((noinline, noclone)) SelfSnapshot cfi_chain_b(int marker) {
  SelfSnapshot s = cfi_chain_c(marker + 1);
  asm volatile("" : : "r"(marker) : "memory");
  return s;
}

__attribute__((noinline, noclone)) SelfSnapshot cfi_chain_a(int marker) {
  SelfSnapshot s = cfi_chain_b(marker + 1);
  asm volatile("" : : "r"(marker) : "memory");
  return s;
}

}  // namespace swprof_cfi_test

namespace {

struct CfiWalk {
  std::vector<Frame> frames;
  StepKind last = StepKind::kNotMine;
  WalkEnd error = WalkEnd::kNoUnwindInfo;
};

// The CFI stepper alone, applied until it stops (with the walker's
// "sp must go up" guard, so a bad rule cannot loop).
CfiWalk walk_with_cfi(CfiStepper& stepper, const SelfSnapshot& s, const Memory& memory) {
  CfiWalk w;
  Registers regs = s.regs;
  bool exact = true;
  w.frames.push_back({regs.pc(), regs.sp(), StepperKind::kSample, kFrameExactPc});
  for (int depth = 0; depth < 256; ++depth) {
    const Mapping* mapping = s.maps->find(exact ? regs.pc() : regs.pc() - 1);
    Stepped out = step(stepper, StepInput{regs, memory, mapping, *s.maps, FrameAddress::of(regs.pc(), exact), depth});
    w.last = out.kind;
    w.error = out.failure;
    if (out.kind != StepKind::kCaller) break;
    if (out.caller.sp() <= regs.sp()) {
      w.error = WalkEnd::kNoProgress;
      break;
    }
    regs = out.caller;
    exact = (out.caller_flags & kFrameExactPc) != 0;
    w.frames.push_back({regs.pc(), regs.sp(), StepperKind::kCfi, out.caller_flags});
  }
  return w;
}

}  // namespace

TEST_CASE("the CFI stepper alone unwinds a snapshot of this process", "[cfi]") {
  const SelfSnapshot s = swprof_cfi_test::cfi_chain_a(1);
  const SampleStackMemory memory = s.memory();
  CfiStepper stepper(std::make_shared<CfiTableCache>());
  const CfiWalk w = walk_with_cfi(stepper, s, memory);
  const std::vector<std::string> names = frame_names(w.frames, *s.maps);
  std::string text;
  for (const auto& n : names) text += n + "\n";
  INFO(text);
  REQUIRE(names.size() >= 4);
  CHECK(names[0].find("capture_self") != std::string::npos);
  CHECK(names[1].find("cfi_chain_c") != std::string::npos);
  CHECK(names[2].find("cfi_chain_b") != std::string::npos);
  CHECK(names[3].find("cfi_chain_a") != std::string::npos);
  // Through Catch2, main and libc's start-up code to _start, whose CFI marks
  // the return address undefined.
  CHECK(w.last == StepKind::kBottom);
  CHECK(std::find_if(names.begin(), names.end(), [](const std::string& n) { return n == "main"; }) != names.end());

  // Warm tables: the cost of one step alone, and of a whole walk (which adds
  // the maps lookup and the frame vector).
  struct Input {
    Registers regs;
    bool exact;
    const Mapping* mapping;
  };
  std::vector<Input> inputs;  // each frame's registers, from the walk again
  {
    Registers regs = s.regs;
    bool exact = true;
    for (size_t i = 0; i + 1 < w.frames.size(); ++i) {
      inputs.push_back({regs, exact, s.maps->find(exact ? regs.pc() : regs.pc() - 1)});
      Stepped out = step(stepper, StepInput{regs, memory, inputs.back().mapping, *s.maps, FrameAddress::of(regs.pc(), exact), 0});
      REQUIRE(out.kind == StepKind::kCaller);
      regs = out.caller;
      exact = (out.caller_flags & kFrameExactPc) != 0;
    }
  }
  const int rounds = 50000;
  uint64_t checksum = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < rounds; ++r)
    for (const Input& in : inputs)
      checksum += step(stepper, StepInput{in.regs, memory, in.mapping, *s.maps, FrameAddress::of(in.regs.pc(), in.exact), 0}).caller.pc();
  const auto t1 = std::chrono::steady_clock::now();
  size_t frames = 0;
  for (int r = 0; r < rounds / 10; ++r) frames += walk_with_cfi(stepper, s, memory).frames.size() - 1;
  const auto t2 = std::chrono::steady_clock::now();
  const double step_ns =
      std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(rounds * inputs.size());
  const double walk_ns = std::chrono::duration<double, std::nano>(t2 - t1).count() / static_cast<double>(frames);
  CHECK(checksum != 0);
  WARN("CFI stepper, warm tables, " << w.frames.size() << " frames: " << step_ns << " ns per step, " << walk_ns
                                    << " ns per frame in a walk (with maps lookup)");
}
