#include "unwind/walker.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <string>

#include "support/fake_maps.h"
#include "support/self_snapshot.h"
#include "support/stepped.h"
#include "unwind/standard_chain.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

StepperList list_of(StepperKind kind, std::function<Stepped(const StepInput&)> fn) {
  StepperList list;
  list.add(std::make_unique<ScriptedStepper>(kind, std::move(fn)));
  return list;
}

const std::vector<uint8_t> kNoStack;
const BufferMemory kEmptyStack(0x7000, Bytes(kNoStack.data(), 0));

// 2,500 + 1 frames of at least 64 bytes each, then a snapshot of the whole stack.
[[gnu::noinline]] SelfSnapshot walker_deep_descend(int depth) {
  volatile char pad[64];
  pad[depth & 63] = static_cast<char>(depth);
  SelfSnapshot s = depth > 0 ? walker_deep_descend(depth - 1) : capture_self(size_t{8} << 20);
  pad[0] = pad[depth & 63];  // work after the call: no tail call
  return s;
}

}  // namespace

TEST_CASE("walker: a chain of frames ends at the bottom", "[walker]") {
  auto maps = fake_code_maps();
  Walker w(list_of(StepperKind::kCfi, [](const StepInput& in) {
    if (in.depth == 3) return bottom_here();
    return caller_is(regs_at(in.regs.pc() + 0x10, in.regs.sp() + 0x20));
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
    Walker w(list_of(StepperKind::kFramePointer,
                      [](const StepInput& in) { return caller_is(regs_at(in.regs.pc() + 4, in.regs.sp())); }));
    auto r = w.walk(regs_at(0x401000, 0x7000), kEmptyStack, maps);
    CHECK(r.end == WalkEnd::kNoProgress);
    CHECK(r.frames.size() == 1);
  }
  SECTION("sp goes down") {
    Walker w(list_of(StepperKind::kFramePointer,
                      [](const StepInput& in) { return caller_is(regs_at(in.regs.pc(), in.regs.sp() - 8)); }));
    CHECK(w.walk(regs_at(0x401000, 0x7000), kEmptyStack, maps).end == WalkEnd::kNoProgress);
  }
  SECTION("maximum depth") {
    Walker w(list_of(StepperKind::kCfi,
                      [](const StepInput& in) { return caller_is(regs_at(in.regs.pc(), in.regs.sp() + 8)); }),
             WalkerOptions{16});
    auto r = w.walk(regs_at(0x401000, 0x7000), kEmptyStack, maps);
    CHECK(r.end == WalkEnd::kMaxDepth);
    CHECK(r.frames.size() == 16);
  }
  SECTION("a caller pc outside any executable mapping is dropped") {
    Walker w(list_of(StepperKind::kWanderer,
                      [](const StepInput& in) { return caller_is(regs_at(0x900000, in.regs.sp() + 8)); }));
    auto r = w.walk(regs_at(0x401000, 0x7000), kEmptyStack, maps);
    CHECK(r.end == WalkEnd::kUnmappedPc);
    CHECK(r.frames.size() == 1);
  }
  SECTION("a zero return address is the end of the stack") {
    Walker w(list_of(StepperKind::kCfi,
                      [](const StepInput& in) { return caller_is(regs_at(0, in.regs.sp() + 8)); }));
    CHECK(w.walk(regs_at(0x401000, 0x7000), kEmptyStack, maps).end == WalkEnd::kBottom);
  }
  SECTION("no registers") {
    Walker w(list_of(StepperKind::kCfi, [](const StepInput&) { return bottom_here(); }));
    CHECK(w.walk(Registers{}, kEmptyStack, maps).end == WalkEnd::kNoRegisters);
  }
}


TEST_CASE("walker: a read past the copy says no stack was copied when nothing was copied at the sampled sp",
          "[walker]") {
  auto maps = fake_code_maps();
  // Reads the caller's return address from the stack, as CFI would.
  Walker w(list_of(StepperKind::kCfi, [](const StepInput& in) {
    const std::optional<uint64_t> ra = in.stack.read_u64(in.regs.sp());
    if (!ra) return failed_with(WalkEnd::kStackExhausted);
    return caller_is(regs_at(*ra, in.regs.sp() + 8));
  }));
  SECTION("nothing copied: a sample in a fault on the stack") {
    const WalkResult r = w.walk(regs_at(0x401000, 0x7000), kEmptyStack, maps);
    CHECK(r.end == WalkEnd::kNoStackCopied);
    CHECK(r.frames.size() == 1);
    CHECK(std::string(walk_end_name(r.end)) == "no stack copied");
  }
  SECTION("a copy whose words run out after some frames is cut short") {
    const std::vector<uint8_t> words = {0x10, 0x10, 0x40, 0, 0, 0, 0, 0};  // one return address, 0x401010
    const BufferMemory stack(0x7000, Bytes(words.data(), words.size()));
    const WalkResult r = w.walk(regs_at(0x401000, 0x7000), stack, maps);
    CHECK(r.end == WalkEnd::kStackExhausted);
    CHECK(r.frames.size() == 2);
  }
  SECTION("a copy that starts above the sampled sp copied nothing there either") {
    const std::vector<uint8_t> words(64, 0);
    const BufferMemory stack(0x7100, Bytes(words.data(), words.size()));
    CHECK(w.walk(regs_at(0x401000, 0x7000), stack, maps).end == WalkEnd::kNoStackCopied);
  }
}

TEST_CASE("walker: a recursion 2,500 deep is walked whole when its stack was copied", "[walker]") {
  const SelfSnapshot s = walker_deep_descend(2500);
  REQUIRE(s.stack.size() >= 2501 * 64);
  const SampleStackMemory stack = s.memory();
  auto walker = make_sample_walker(UnwindOptions{}, make_shared_unwind_state());
  const WalkResult r = walker->walk(s.regs, stack, *s.maps);
  const std::vector<std::string> names = frame_names(r.frames, *s.maps);
  const auto descents = std::count_if(names.begin(), names.end(), [](const std::string& n) {
    return n.find("walker_deep_descend") != std::string::npos;
  });
  INFO(r.frames.size() << " frames, ended " << walk_end_name(r.end) << ", the last " << names.back());
  CHECK(r.end == WalkEnd::kBottom);
  CHECK(descents == 2501);
  CHECK(std::none_of(r.frames.begin(), r.frames.end(), [](const Frame& f) { return f.flags & kFrameGuess; }));

  SECTION("--max-depth cuts it where asked") {
    UnwindOptions options;
    options.max_depth = 100;
    const WalkResult cut = make_sample_walker(options, make_shared_unwind_state())->walk(s.regs, stack, *s.maps);
    CHECK(cut.end == WalkEnd::kMaxDepth);
    CHECK(cut.frames.size() == 100);
  }
}
