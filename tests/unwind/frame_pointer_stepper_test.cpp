// The frame-pointer stepper: each rule on a fake stack, with the pc pointed
// at real instructions of the fx_* fixtures (fixtures/analysis_frames.S,
// linked into this executable), and a walk of this process's own stack.

#include "unwind/frame_pointer_stepper.h"

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
void fx_savefp();
void fx_noframe();
}

namespace {

// FramePointerStepper::apply with its caller's registers, as one value.
Stepped apply_fp(FramePointerRule rule, const StepInput& in) {
  Registers caller;
  const Applied a = FramePointerStepper::apply(rule, in, caller);
  return stepped(a, caller);
}


uint64_t addr_of(void (*fn)()) { return reinterpret_cast<uint64_t>(fn); }

uint8_t code_byte(uint64_t addr) {
  uint8_t b;
  std::memcpy(&b, reinterpret_cast<const void*>(addr), 1);
  return b;
}

// A fake stack of 8-byte words at kStackBase, and this process's maps (so
// pcs in the fixtures have a binary and symbols).
struct FakeFrame {
  static constexpr uint64_t kStackBase = 0x7ffe00001000;

  std::vector<uint64_t> words;
  std::vector<uint8_t> bytes;
  Registers regs;
  std::shared_ptr<BinaryCache> binaries = std::make_shared<BinaryCache>();
  std::shared_ptr<ProcessMaps> maps = self_maps(*binaries);
  std::optional<BufferMemory> memory;

  explicit FakeFrame(std::vector<uint64_t> stack_words) : words(std::move(stack_words)) {
    bytes.resize(words.size() * 8);
    if (!words.empty()) std::memcpy(bytes.data(), words.data(), bytes.size());
    memory.emplace(kStackBase, Bytes(bytes));
  }
  static uint64_t at(size_t word) { return kStackBase + 8 * word; }

  Stepped step(FramePointerStepper& stepper, uint64_t pc, uint64_t sp, uint64_t rbp, bool exact) {
    regs.set(kRip, pc);
    regs.set(kRsp, sp);
    regs.set(kRbp, rbp);
    const StepInput in{regs, *memory, maps->find(pc), *maps, FrameAddress::of(regs.pc(), exact), exact ? 0 : 1};
    return testing::step(stepper, in);
  }
};

// A return address the maps know as executable code.
const uint64_t kReturnAddress = addr_of(fx_noframe) + 5;

void check_caller(const Stepped& out, uint64_t rip, uint64_t rsp, uint64_t rbp) {
  REQUIRE(out.kind == StepKind::kCaller);
  CHECK(out.caller.pc() == rip);
  CHECK(out.caller.sp() == rsp);
  CHECK(out.caller.bp() == rbp);
  CHECK(out.caller_flags == 0);
}

}  // namespace

TEST_CASE("fixture bytes are where the tests expect them", "[fp]") {
  const uint64_t f = addr_of(fx_standard);
  CHECK(code_byte(f + 4) == 0x55);   // push rbp
  CHECK(code_byte(f + 5) == 0x48);   // mov rbp, rsp
  CHECK(code_byte(f + 17) == 0xc9);  // leave
  CHECK(code_byte(f + 18) == 0xc3);  // ret
  CHECK(code_byte(addr_of(fx_savefp) + 1) == 0x53);  // push rbx
}

TEST_CASE("set: (rip, rsp, rbp) = (*(rbp + 8), rbp + 16, *rbp)", "[fp]") {
  // sp -> [0] local, [1] local, rbp -> [2] caller's rbp, [3] return address
  const uint64_t caller_rbp = FakeFrame::at(6);
  FakeFrame f({0x1111, 0x2222, caller_rbp, kReturnAddress, 0, 0, 0, 0});
  FramePointerStepper stepper;
  const uint64_t pc = addr_of(fx_standard) + 12;  // the call, frame set
  check_caller(f.step(stepper, pc, FakeFrame::at(0), FakeFrame::at(2), true), kReturnAddress, FakeFrame::at(4), caller_rbp);
  // A return address in the body is always in a set frame.
  check_caller(f.step(stepper, pc + 5, FakeFrame::at(0), FakeFrame::at(2), false), kReturnAddress, FakeFrame::at(4),
               caller_rbp);
}

TEST_CASE("halfset: (rip, rsp, rbp) = (*(rsp + 8), rsp + 16, *rsp)", "[fp]") {
  // Just after push rbp: sp -> [0] caller's rbp, [1] return address.
  const uint64_t caller_rbp = FakeFrame::at(8);
  FakeFrame f({caller_rbp, kReturnAddress, 0, 0});
  FramePointerStepper stepper;
  const uint64_t junk_rbp = 0x10;  // rbp is not this frame's yet: the rule must not use it
  check_caller(f.step(stepper, addr_of(fx_standard) + 5, FakeFrame::at(0), junk_rbp, true), kReturnAddress,
               FakeFrame::at(2), caller_rbp);
  // Same instant in a function that only saves rbp.
  check_caller(f.step(stepper, addr_of(fx_savefp) + 1, FakeFrame::at(0), junk_rbp, true), kReturnAddress,
               FakeFrame::at(2), caller_rbp);
}

TEST_CASE("unset: (rip, rsp, rbp) = (*rsp, rsp + 8, rbp)", "[fp]") {
  // sp -> [0] return address.
  FakeFrame f({kReturnAddress, 0x3333});
  FramePointerStepper stepper;
  const uint64_t callers_rbp = 0x7ffe00002000;
  for (uint64_t offset : {0, 4, 18}) {  // endbr64, push rbp, ret after leave
    INFO("fx_standard + " << offset);
    check_caller(f.step(stepper, addr_of(fx_standard) + offset, FakeFrame::at(0), callers_rbp, true), kReturnAddress,
                 FakeFrame::at(1), callers_rbp);
  }
  // The ret after pop rbp in a function that only saved rbp.
  check_caller(f.step(stepper, addr_of(fx_savefp) + 7, FakeFrame::at(0), callers_rbp, true), kReturnAddress,
               FakeFrame::at(1), callers_rbp);
}

TEST_CASE("functions without an rbp frame are not the frame-pointer stepper's", "[fp]") {
  FakeFrame f({FakeFrame::at(4), kReturnAddress, FakeFrame::at(4), kReturnAddress, 0, 0});
  FramePointerStepper stepper;
  CHECK(f.step(stepper, addr_of(fx_noframe) + 5, FakeFrame::at(0), FakeFrame::at(2), true).kind == StepKind::kNotMine);
  CHECK(f.step(stepper, addr_of(fx_noframe) + 5, FakeFrame::at(0), FakeFrame::at(2), false).kind == StepKind::kNotMine);
  // rbp is a general register in the body of a function that only saves it.
  CHECK(f.step(stepper, addr_of(fx_savefp) + 2, FakeFrame::at(0), FakeFrame::at(2), true).kind == StepKind::kNotMine);
  CHECK(f.step(stepper, addr_of(fx_savefp) + 5, FakeFrame::at(0), FakeFrame::at(2), false).kind == StepKind::kNotMine);
}

TEST_CASE("without rbp the frame-pointer stepper does not answer", "[fp]") {
  FakeFrame f({FakeFrame::at(2), kReturnAddress, 0, 0});
  FramePointerStepper stepper;
  f.regs.set(kRip, addr_of(fx_standard) + 12);
  f.regs.set(kRsp, FakeFrame::at(0));
  const StepInput in{f.regs, *f.memory, f.maps->find(f.regs.pc()), *f.maps, FrameAddress::of(f.regs.pc(), true), 0};
  CHECK(step(stepper, in).kind == StepKind::kNotMine);
}

TEST_CASE("reads past the copied stack end the walk as stack exhausted", "[fp]") {
  FramePointerStepper stepper;
  const uint64_t pc = addr_of(fx_standard) + 12;
  SECTION("set: the return address is past the end") {
    FakeFrame f({0, 0, FakeFrame::at(8)});  // rbp -> [2]; [3] is not copied
    const Stepped out = f.step(stepper, pc, FakeFrame::at(0), FakeFrame::at(2), true);
    CHECK(out.kind == StepKind::kFailed);
    CHECK(out.failure == WalkEnd::kStackExhausted);
  }
  SECTION("set: rbp itself is past the end") {
    FakeFrame f({0, 0});
    const Stepped out = f.step(stepper, pc, FakeFrame::at(0), FakeFrame::at(40), true);
    CHECK(out.kind == StepKind::kFailed);
    CHECK(out.failure == WalkEnd::kStackExhausted);
  }
  SECTION("halfset") {
    FakeFrame f({FakeFrame::at(8)});
    const Stepped out = f.step(stepper, addr_of(fx_standard) + 5, FakeFrame::at(0), 0, true);
    CHECK(out.kind == StepKind::kFailed);
    CHECK(out.failure == WalkEnd::kStackExhausted);
  }
  SECTION("unset with an empty copy") {
    FakeFrame f({});
    const Stepped out = f.step(stepper, addr_of(fx_standard), FakeFrame::at(0), 0, true);
    CHECK(out.kind == StepKind::kFailed);
    CHECK(out.failure == WalkEnd::kStackExhausted);
  }
}

TEST_CASE("frame pointers that lead nowhere sensible are bad frame pointers", "[fp]") {
  FramePointerStepper stepper;
  const uint64_t pc = addr_of(fx_standard) + 12;
  SECTION("rbp below sp") {
    FakeFrame f({0, 0, 0, 0});
    const Stepped out = f.step(stepper, pc, FakeFrame::at(2), FakeFrame::at(0), true);
    CHECK(out.kind == StepKind::kFailed);
    CHECK(out.failure == WalkEnd::kBadFramePointer);
  }
  SECTION("rbp null at the end of a chain") {
    FakeFrame f({0, 0});
    const Stepped out = f.step(stepper, pc, FakeFrame::at(0), 0, true);
    CHECK(out.kind == StepKind::kFailed);
    CHECK(out.failure == WalkEnd::kBadFramePointer);
  }
  SECTION("misaligned rbp") {
    FakeFrame f({0, 0, 0, 0});
    const Stepped out = f.step(stepper, pc, FakeFrame::at(0), FakeFrame::at(1) + 3, true);
    CHECK(out.kind == StepKind::kFailed);
    CHECK(out.failure == WalkEnd::kBadFramePointer);
  }
  SECTION("a return address outside executable code") {
    FakeFrame f({0, 0, FakeFrame::at(6), 0x1234, 0, 0, 0, 0});
    const Stepped out = f.step(stepper, pc, FakeFrame::at(0), FakeFrame::at(2), true);
    CHECK(out.kind == StepKind::kFailed);
    CHECK(out.failure == WalkEnd::kBadFramePointer);
  }
}

TEST_CASE("without symbols the rbp chain is followed only inside the copied stack", "[fp]") {
  FramePointerStepper stepper;
  const uint64_t unknown_pc = 0x10000;  // in no mapping
  FakeFrame f({0, FakeFrame::at(6), kReturnAddress, 0, 0, 0, 0, 0});
  check_caller(f.step(stepper, unknown_pc, FakeFrame::at(0), FakeFrame::at(1), true), kReturnAddress, FakeFrame::at(3),
               FakeFrame::at(6));
  // rbp outside the copy, or below sp: not a chain we can trust.
  CHECK(f.step(stepper, unknown_pc, FakeFrame::at(0), FakeFrame::at(100), true).kind == StepKind::kNotMine);
  CHECK(f.step(stepper, unknown_pc, FakeFrame::at(2), FakeFrame::at(1), true).kind == StepKind::kNotMine);
}

TEST_CASE("each rule can be applied directly", "[fp]") {
  FakeFrame f({FakeFrame::at(4), kReturnAddress, FakeFrame::at(6), kReturnAddress + 1, 0, 0, 0, 0});
  f.regs.set(kRip, addr_of(fx_standard));
  f.regs.set(kRsp, FakeFrame::at(0));
  f.regs.set(kRbp, FakeFrame::at(2));
  const StepInput in{f.regs, *f.memory, f.maps->find(f.regs.pc()), *f.maps, FrameAddress::of(f.regs.pc(), true), 0};
  check_caller(apply_fp(FramePointerRule::kSet, in), kReturnAddress + 1, FakeFrame::at(4),
               FakeFrame::at(6));
  check_caller(apply_fp(FramePointerRule::kHalfset, in), kReturnAddress, FakeFrame::at(2),
               FakeFrame::at(4));
  const Stepped unset = apply_fp(FramePointerRule::kUnset, in);
  CHECK(unset.kind == StepKind::kFailed);  // *rsp is not code
  CHECK(unset.failure == WalkEnd::kBadFramePointer);
}

// The chain the self-snapshot test walks: noinline, and an empty asm after
// each call so none becomes a tail call.
__attribute__((noinline)) SelfSnapshot fp_chain_c() {
  SelfSnapshot s = capture_self();
  asm volatile("" ::: "memory");
  return s;
}
__attribute__((noinline)) SelfSnapshot fp_chain_b() {
  SelfSnapshot s = fp_chain_c();
  asm volatile("" ::: "memory");
  return s;
}
__attribute__((noinline)) SelfSnapshot fp_chain_a() {
  SelfSnapshot s = fp_chain_b();
  asm volatile("" ::: "memory");
  return s;
}

TEST_CASE("frame pointers alone unwind this process's own stack", "[fp]") {
  const SelfSnapshot snap = fp_chain_a();
  const SampleStackMemory memory = snap.memory();
  FramePointerStepper stepper;

  std::vector<Frame> frames{{snap.regs.pc(), snap.regs.sp(), StepperKind::kSample, kFrameExactPc}};
  Registers regs = snap.regs;
  for (int depth = 0; depth < 4; ++depth) {
    const StepInput in{regs, memory, snap.maps->find(regs.pc()), *snap.maps, FrameAddress::of(regs.pc(), depth == 0), depth};
    const Stepped out = step(stepper, in);
    INFO("step " << depth << " from " << function_name_at(regs.pc(), depth == 0, *snap.maps));
    REQUIRE(out.kind == StepKind::kCaller);
    regs = out.caller;
    frames.push_back({regs.pc(), regs.sp(), StepperKind::kFramePointer, out.caller_flags});
  }

  const std::vector<std::string> names = frame_names(frames, *snap.maps);
  INFO("frames: " << names[0] << " | " << names[1] << " | " << names[2] << " | " << names[3] << " | " << names[4]);
  CHECK(names[0].find("capture_self") != std::string::npos);
  CHECK(names[1].find("fp_chain_c") != std::string::npos);
  CHECK(names[2].find("fp_chain_b") != std::string::npos);
  CHECK(names[3].find("fp_chain_a") != std::string::npos);
  for (size_t i = 1; i < frames.size(); ++i) CHECK(frames[i].sp > frames[i - 1].sp);
}

TEST_CASE("a discovered frameless function of a stripped binary is not the frame-pointer stepper's", "[fp]") {
  // tests/binary/fixtures/discovery.S, stripped: `tail_after_pop` is
  // `mov eax, 1; ret`, found only as a tail-jump target. Without its start
  // the plain rbp chain would take any rbp that points into the stack.
  const std::string fixture = SWPROF_DISCOVERY_FIXTURE;
  auto named = ElfBinary::open(fixture);
  REQUIRE(named);
  const FunctionSymbol* fn = named->function_named("tail_after_pop");
  const FunctionSymbol* main_fn = named->function_named("main");
  REQUIRE(fn);
  REQUIRE(main_fn);
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, fixture + ".stripped", 0);

  std::vector<uint64_t> words = {main_fn->start + 6, 0, FakeFrame::at(4), main_fn->start + 6, 0};
  std::vector<uint8_t> bytes(words.size() * 8);
  std::memcpy(bytes.data(), words.data(), bytes.size());
  BufferMemory memory(FakeFrame::kStackBase, Bytes(bytes));
  Registers regs;
  regs.set(kRip, fn->start);
  regs.set(kRsp, FakeFrame::at(0));
  regs.set(kRbp, FakeFrame::at(2));  // a plausible frame: plain_chain would say kSet
  for (bool exact : {true, false}) {
    const uint64_t pc = exact ? fn->start : fn->start + 1;
    regs.set(kRip, pc);
    const StepInput in{regs, memory, maps.find(pc), maps, FrameAddress::of(pc, exact), exact ? 0 : 1};
    FramePointerStepper stepper;
    CHECK(testing::step(stepper, in).kind == StepKind::kNotMine);
  }
}
