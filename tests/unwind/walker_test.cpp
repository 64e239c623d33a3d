#include "unwind/walker.h"

#include <catch2/catch.hpp>
#include <functional>

#include "binary/x86_decoder.h"
#include "support/fake_maps.h"
#include "support/self_snapshot.h"
#include "unwind/bottom_stepper.h"
#include "unwind/signal_stepper.h"
#include "unwind/wanderer_stepper.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// A stepper whose answer is a function of the input, for driving the walker.
class ScriptedStepper : public FrameStepper {
 public:
  ScriptedStepper(StepperKind kind, std::function<StepOutcome(const StepInput&)> fn) : kind_(kind), fn_(std::move(fn)) {}
  StepperKind kind() const override { return kind_; }
  StepOutcome step(const StepInput& in) override { return fn_(in); }

 private:
  StepperKind kind_;
  std::function<StepOutcome(const StepInput&)> fn_;
};

StepperGroup group_of(StepperKind kind, std::function<StepOutcome(const StepInput&)> fn) {
  StepperGroup g;
  g.add(std::make_unique<ScriptedStepper>(kind, std::move(fn)), 10);
  return g;
}

const std::vector<uint8_t> kNoStack;
const BufferMemory kEmptyStack(0x7000, Bytes(kNoStack.data(), 0));

}  // namespace

TEST_CASE("walker: a chain of frames ends at the bottom", "[walker]") {
  auto maps = fake_code_maps();
  Walker w(group_of(StepperKind::kCfi, [](const StepInput& in) {
    if (in.depth == 3) return StepOutcome::bottom();
    return StepOutcome::success(regs_at(in.regs.pc() + 0x10, in.regs.sp() + 0x20));
  }));
  WalkResult r = w.walk(regs_at(0x401000, 0x7000), kEmptyStack, maps);
  CHECK(r.end == WalkEnd::kBottom);
  REQUIRE(r.frames.size() == 4);
  CHECK(r.frames[0].stepper == StepperKind::kSample);
  CHECK(r.frames[0].flags & kFrameExactPc);
  CHECK(r.frames[1].stepper == StepperKind::kCfi);
  CHECK_FALSE(r.frames[1].flags & kFrameExactPc);
  CHECK(r.frames[3].pc == 0x401030);
  CHECK(r.frames[3].sp == 0x7060);
}

TEST_CASE("walker: guards against no progress, sp going down, depth and unmapped pcs", "[walker]") {
  auto maps = fake_code_maps();
  SECTION("sp does not move up") {
    Walker w(group_of(StepperKind::kFramePointer,
                      [](const StepInput& in) { return StepOutcome::success(regs_at(in.regs.pc() + 4, in.regs.sp())); }));
    auto r = w.walk(regs_at(0x401000, 0x7000), kEmptyStack, maps);
    CHECK(r.end == WalkEnd::kNoProgress);
    CHECK(r.frames.size() == 1);
  }
  SECTION("sp goes down") {
    Walker w(group_of(StepperKind::kFramePointer,
                      [](const StepInput& in) { return StepOutcome::success(regs_at(in.regs.pc(), in.regs.sp() - 8)); }));
    CHECK(w.walk(regs_at(0x401000, 0x7000), kEmptyStack, maps).end == WalkEnd::kNoProgress);
  }
  SECTION("maximum depth") {
    Walker w(group_of(StepperKind::kCfi,
                      [](const StepInput& in) { return StepOutcome::success(regs_at(in.regs.pc(), in.regs.sp() + 8)); }),
             WalkerOptions{16});
    auto r = w.walk(regs_at(0x401000, 0x7000), kEmptyStack, maps);
    CHECK(r.end == WalkEnd::kMaxDepth);
    CHECK(r.frames.size() == 16);
  }
  SECTION("a caller pc outside any executable mapping is dropped") {
    Walker w(group_of(StepperKind::kWanderer,
                      [](const StepInput& in) { return StepOutcome::success(regs_at(0x900000, in.regs.sp() + 8)); }));
    auto r = w.walk(regs_at(0x401000, 0x7000), kEmptyStack, maps);
    CHECK(r.end == WalkEnd::kUnmappedPc);
    CHECK(r.frames.size() == 1);
  }
  SECTION("a zero return address is the end of the stack") {
    Walker w(group_of(StepperKind::kCfi,
                      [](const StepInput& in) { return StepOutcome::success(regs_at(0, in.regs.sp() + 8)); }));
    CHECK(w.walk(regs_at(0x401000, 0x7000), kEmptyStack, maps).end == WalkEnd::kBottom);
  }
  SECTION("no registers") {
    Walker w(group_of(StepperKind::kCfi, [](const StepInput&) { return StepOutcome::bottom(); }));
    CHECK(w.walk(Registers{}, kEmptyStack, maps).end == WalkEnd::kNoRegisters);
  }
}

TEST_CASE("stepper group: priority order, fallthrough on not_me and error", "[walker]") {
  auto maps = fake_code_maps();
  std::vector<StepperKind> asked;
  auto recorder = [&](StepperKind k, StepOutcome out) {
    return std::make_unique<ScriptedStepper>(k, [&asked, k, out](const StepInput&) {
      asked.push_back(k);
      return out;
    });
  };
  StepperGroup g;
  g.add(recorder(StepperKind::kAnalysis, StepOutcome::success(regs_at(0x401100, 0x7100))), 40);
  g.add(recorder(StepperKind::kBottom, StepOutcome::not_me()), 0);
  g.add(recorder(StepperKind::kCfi, StepOutcome::fail(WalkEnd::kStackExhausted)), 20);
  Registers r = regs_at(0x401000, 0x7000);
  StepInput in{r, kEmptyStack, maps.find(0x401000), maps, true, 0};
  GroupOutcome out = g.step(in);
  CHECK(out.outcome.status == StepStatus::kSuccess);
  CHECK(out.by == StepperKind::kAnalysis);
  CHECK(asked == std::vector<StepperKind>{StepperKind::kBottom, StepperKind::kCfi, StepperKind::kAnalysis});

  StepperGroup failing;
  failing.add(recorder(StepperKind::kCfi, StepOutcome::fail(WalkEnd::kStackExhausted)), 20);
  failing.add(recorder(StepperKind::kFramePointer, StepOutcome::fail(WalkEnd::kBadFramePointer)), 30);
  GroupOutcome bad = failing.step(in);
  CHECK(bad.outcome.status == StepStatus::kError);
  CHECK(bad.outcome.error == WalkEnd::kStackExhausted);
}

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
  StepOutcome out = stepper.step(StepInput{r, stack, maps->find(*restore_rt - 1), *maps, false, 1});
  REQUIRE(out.status == StepStatus::kSuccess);
  CHECK(out.caller_flags & kFrameSignal);
  CHECK(out.caller.pc() == 0x401234);
  CHECK(out.caller.sp() == 0x7ff800);
  CHECK(out.caller.bp() == 0x7ff400);
  CHECK(out.caller.get(kRbx) == 0xb0b);

  SECTION("a ucontext cut off by the end of the copied stack") {
    BufferMemory short_stack(sp, Bytes(reinterpret_cast<const uint8_t*>(words.data()), 100));
    StepOutcome cut = stepper.step(StepInput{r, short_stack, maps->find(*restore_rt - 1), *maps, false, 1});
    CHECK(cut.status == StepStatus::kError);
    CHECK(cut.error == WalkEnd::kStackExhausted);
  }
  SECTION("any other pc is not a signal frame") {
    Registers other = regs_at(*restore_rt + 1, sp);
    CHECK(stepper.step(StepInput{other, stack, maps->find(*restore_rt), *maps, false, 1}).status == StepStatus::kNotMe);
  }
}

TEST_CASE("bottom stepper stops at the program entry and thread entry", "[walker][bottom]") {
  BinaryCache binaries;
  auto maps = self_maps(binaries);
  BottomStepper stepper;
  Registers zero = regs_at(0, 0x7000);
  CHECK(stepper.step(StepInput{zero, kEmptyStack, nullptr, *maps, false, 3}).status == StepStatus::kStackBottom);
  // This test executable's entry point (_start).
  const Mapping* exe = nullptr;
  for (const Mapping& m : maps->mappings())
    if (m.binary && m.binary->function_named("_start") && m.path.find("swprof_unwind_tests") != std::string::npos) exe = &m;
  REQUIRE(exe);
  const uint64_t start = exe->binary->function_named("_start")->start + exe->bias;
  Registers in_start = regs_at(start + 4, 0x7000);
  CHECK(stepper.step(StepInput{in_start, kEmptyStack, exe, *maps, false, 5}).status == StepStatus::kStackBottom);
  Registers elsewhere = regs_at(reinterpret_cast<uint64_t>(&capture_self) + 1, 0x7000);
  CHECK(stepper.step(StepInput{elsewhere, kEmptyStack, maps->find(elsewhere.pc() - 1), *maps, false, 1}).status ==
        StepStatus::kNotMe);
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
    CHECK(stepper.step(StepInput{r, kEmptyStack, ld, *maps, false, 4}).status == StepStatus::kStackBottom);
  }
  // Past the entry code: ld.so's own functions are not the bottom.
  Registers after = regs_at(returns.back() + ld->bias + 64, 0x7000);
  CHECK(stepper.step(StepInput{after, kEmptyStack, ld, *maps, false, 4}).status == StepStatus::kNotMe);
}

TEST_CASE("wanderer finds the next return address on the stack and flags it as a guess", "[walker][wanderer]") {
  SelfSnapshot snap = capture_self();
  // capture_self's return address is somewhere in its frame: the wanderer
  // must find a word that follows a call and lies in code.
  WandererStepper stepper;
  auto mem = snap.memory();
  StepOutcome out = stepper.step(StepInput{snap.regs, mem, snap.maps->find(snap.regs.pc()), *snap.maps, true, 0});
  REQUIRE(out.status == StepStatus::kSuccess);
  CHECK(out.caller_flags & kFrameGuess);
  const Mapping* m = snap.maps->find(out.caller.pc() - 1);
  REQUIRE(m);
  CHECK(m->executable);
  CHECK(WandererStepper::follows_call(*m, out.caller.pc()));
  // A stack of zeros has no return address in it.
  std::vector<uint8_t> zeros(512, 0);
  BufferMemory zero_stack(0x7000, Bytes(zeros.data(), zeros.size()));
  Registers r = regs_at(snap.regs.pc(), 0x7000);
  CHECK(stepper.step(StepInput{r, zero_stack, nullptr, *snap.maps, true, 0}).status == StepStatus::kError);
}
