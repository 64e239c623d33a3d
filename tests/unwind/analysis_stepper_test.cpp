// The analysis stepper: on a fake stack with the pc at real fixture code
// (fixtures/analysis_frames.S), and on a live call chain built without frame
// pointers and without unwind info (fixtures/analysis_chain.c).

#include "unwind/analysis_stepper.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "binary/elf_binary.h"
#include "support/self_snapshot.h"
#include "support/sym_fixtures.h"
#include "support/stepped.h"

using namespace swprof;
using namespace swprof::testing;

extern "C" {
void fx_standard();
void fx_noframe();

typedef void (*an_callback)(void*);
int an_chain_a(an_callback cb, void* arg);
}

namespace {

// AnalysisStepper::apply with its caller's registers, as one value.
Stepped apply_height(const StackHeight& height, const StepInput& in) {
  Registers caller;
  const Applied a = AnalysisStepper::apply(height, in, caller);
  return stepped(a, caller);
}


uint64_t addr_of(void (*fn)()) { return reinterpret_cast<uint64_t>(fn); }

constexpr uint64_t kStackBase = 0x7ffe00001000;
uint64_t at(size_t word) { return kStackBase + 8 * word; }

struct FakeStack {
  std::vector<uint8_t> bytes;
  BufferMemory memory;
  FakeStack(const FakeStack&) = delete;
  explicit FakeStack(const std::vector<uint64_t>& words)
      : bytes(words.size() * 8), memory(kStackBase, Bytes(bytes.data(), bytes.size())) {
    if (!words.empty()) std::memcpy(bytes.data(), words.data(), bytes.size());
  }
};

struct Maps {
  std::shared_ptr<BinaryCache> binaries = std::make_shared<BinaryCache>();
  std::shared_ptr<ProcessMaps> maps = self_maps(*binaries);
};

Stepped step_at(AnalysisStepper& stepper, const Maps& m, const FakeStack& s, Registers regs, bool exact) {
  const StepInput in{regs, s.memory, m.maps->find(exact ? regs.pc() : regs.pc() - 1), *m.maps, FrameAddress::of(regs.pc(), exact), exact ? 0 : 1};
  return step(stepper, in);
}

Registers regs_of(uint64_t pc, uint64_t sp, std::optional<uint64_t> rbp = std::nullopt) {
  Registers r;
  r.set(kRip, pc);
  r.set(kRsp, sp);
  if (rbp) r.set(kRbp, *rbp);
  return r;
}

const uint64_t kReturnAddress = addr_of(fx_standard) + 17;

}  // namespace

TEST_CASE("analysis: a frameless function's CFA comes from its stack height", "[analysis]") {
  Maps m;
  AnalysisStepper stepper;
  // fx_noframe + 5 (after push rbx; sub rsp, 32): CFA = rsp + 48.
  FakeStack s({0, 0, 0, 0, 0xb, kReturnAddress, 0x77});
  const Stepped out = step_at(stepper, m, s, regs_of(addr_of(fx_noframe) + 5, at(0), 0x4242), true);
  REQUIRE(out.kind == StepKind::kCaller);
  CHECK(out.caller.pc() == kReturnAddress);
  CHECK(out.caller.sp() == at(6));
  CHECK(out.caller.bp() == 0x4242);  // rbp was never touched
  // At the entry the return address is at rsp.
  FakeStack entry({kReturnAddress});
  const Stepped first = step_at(stepper, m, entry, regs_of(addr_of(fx_noframe), at(0), 0x4242), true);
  REQUIRE(first.kind == StepKind::kCaller);
  CHECK(first.caller.sp() == at(1));
}

TEST_CASE("analysis: an rbp frame gives the CFA and the saved rbp", "[analysis]") {
  Maps m;
  AnalysisStepper stepper;
  // The return address after fx_standard's call: height before the call,
  // CFA = rbp + 16, caller's rbp at CFA - 16.
  FakeStack s({0, 0, at(9), kReturnAddress, 0});
  const Stepped out = step_at(stepper, m, s, regs_of(addr_of(fx_standard) + 17, at(0), at(2)), false);
  REQUIRE(out.kind == StepKind::kCaller);
  CHECK(out.caller.pc() == kReturnAddress);
  CHECK(out.caller.sp() == at(4));
  CHECK(out.caller.bp() == at(9));
  // Without rbp known, the rsp height still works (CFA = rsp + 32 here).
  const Stepped by_rsp = step_at(stepper, m, s, regs_of(addr_of(fx_standard) + 17, at(0)), false);
  REQUIRE(by_rsp.kind == StepKind::kCaller);
  CHECK(by_rsp.caller.sp() == at(4));
}

TEST_CASE("analysis: failures say why", "[analysis]") {
  Maps m;
  AnalysisStepper stepper;
  SECTION("a read past the copied stack") {
    FakeStack s({0, 0});
    const Stepped out = step_at(stepper, m, s, regs_of(addr_of(fx_noframe) + 5, at(0)), true);
    CHECK(out.kind == StepKind::kFailed);
    CHECK(out.failure == WalkEnd::kStackExhausted);
  }
  SECTION("a return address outside executable code") {
    FakeStack s({0, 0, 0, 0, 0, 0x1234});
    const Stepped out = step_at(stepper, m, s, regs_of(addr_of(fx_noframe) + 5, at(0)), true);
    CHECK(out.kind == StepKind::kFailed);
    CHECK(out.failure == WalkEnd::kNoUnwindInfo);
  }
  SECTION("an unknown height") {
    const Stepped out = apply_height(StackHeight{}, StepInput{regs_of(addr_of(fx_noframe), at(0)), FakeStack({kReturnAddress}).memory, nullptr, *m.maps, FrameAddress::of(addr_of(fx_noframe), true), 0});
    CHECK(out.kind == StepKind::kFailed);
    CHECK(out.failure == WalkEnd::kNoUnwindInfo);
  }
  SECTION("a pc without a binary or symbol is not the analysis stepper's") {
    FakeStack s({kReturnAddress});
    CHECK(step_at(stepper, m, s, regs_of(0x10000, at(0)), true).kind == StepKind::kNotMine);
  }
}

struct ChainCapture {
  SelfSnapshot snapshot;
};

// The callback at the end of the fixture chain.
extern "C" __attribute__((noinline)) void analysis_chain_capture(void* out) {
  static_cast<ChainCapture*>(out)->snapshot = capture_self();
  asm volatile("" ::: "memory");
}

TEST_CASE("stack-height analysis alone unwinds code without frame pointers or unwind info", "[analysis]") {
  ChainCapture capture;
  an_chain_a(analysis_chain_capture, &capture);
  const SelfSnapshot& snap = capture.snapshot;
  const SampleStackMemory memory = snap.memory();
  AnalysisStepper stepper;

  std::vector<Frame> frames{{snap.regs.pc(), snap.regs.sp(), StepperKind::kSample, kFrameExactPc}};
  Registers regs = snap.regs;
  const int steps = 6;
  for (int depth = 0; depth < steps; ++depth) {
    const bool exact = depth == 0;
    const StepInput in{regs, memory, snap.maps->find(exact ? regs.pc() : regs.pc() - 1), *snap.maps, FrameAddress::of(regs.pc(), exact), depth};
    const Stepped out = step(stepper, in);
    INFO("step " << depth << " from " << function_name_at(regs.pc(), exact, *snap.maps));
    REQUIRE(out.kind == StepKind::kCaller);
    regs = out.caller;
    frames.push_back({regs.pc(), regs.sp(), StepperKind::kAnalysis, out.caller_flags});
  }

  const std::vector<std::string> names = frame_names(frames, *snap.maps);
  std::string all;
  for (const std::string& n : names) all += n + " | ";
  INFO("frames: " << all);
  REQUIRE(names.size() == steps + 1);
  CHECK(names[0].find("capture_self") != std::string::npos);
  CHECK(names[1] == "analysis_chain_capture");
  CHECK(names[2] == "an_chain_c");
  CHECK(names[3] == "an_switch_call");
  CHECK(names[4] == "an_chain_b");
  CHECK(names[5] == "an_realign_call");
  CHECK(names[6] == "an_chain_a");
  for (size_t i = 1; i < frames.size(); ++i) CHECK(frames[i].sp > frames[i - 1].sp);
}

TEST_CASE("analysis: a function of a stripped binary is analyzed from its discovered start", "[analysis]") {
  // tests/binary/fixtures/discovery.S, stripped: `work` is `sub rsp, 24; call leaf1; ...`,
  // found only as a call target. Its address comes from the unstripped twin.
  const std::string fixture = SWPROF_DISCOVERY_FIXTURE;
  auto named = ElfBinary::open(fixture);
  REQUIRE(named);
  const FunctionSymbol* work = named->function_named("work");
  const FunctionSymbol* main_fn = named->function_named("main");
  REQUIRE(work);
  REQUIRE(main_fn);
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, fixture + ".stripped", 0);
  REQUIRE(maps.find(work->start)->binary->functions().empty());

  const uint64_t return_address = main_fn->start + 6;  // after `push rbx; call work`
  std::vector<uint64_t> words = {0, 0, 0, return_address, 0};
  std::vector<uint8_t> bytes(words.size() * 8);
  std::memcpy(bytes.data(), words.data(), bytes.size());
  BufferMemory memory(kStackBase, Bytes(bytes));
  Registers regs;
  regs.set(kRip, work->start + 4);  // after `sub rsp, 24`
  regs.set(kRsp, at(0));
  const StepInput in{regs, memory, maps.find(regs.pc()), maps, FrameAddress::of(regs.pc(), true), 0};
  AnalysisStepper stepper;
  const Stepped out = testing::step(stepper, in);
  REQUIRE(out.kind == StepKind::kCaller);
  CHECK(out.caller.pc() == return_address);
  CHECK(out.caller.sp() == at(4));
}
