#include "unwind/beyond_check.h"

#include <catch2/catch.hpp>
#include <vector>

#include "support/self_snapshot.h"

using namespace swprof;

namespace {

constexpr uint64_t kCopyEnd = 0x7ff0'0000;

// A walk whose frames (after frame 0 at sp 0x7fef'0000) have these sps.
WalkResult walk_with_sps(const std::vector<uint64_t>& sps) {
  WalkResult w;
  w.frames.push_back({0x401000, 0x7fef'0000, StepperKind::kSample, kFrameExactPc});
  for (uint64_t sp : sps) w.frames.push_back({0x401100, sp, StepperKind::kCfi, 0});
  return w;
}

// A map of the copy's last `window` bytes with the words at `changed` set.
std::vector<uint8_t> map_of(uint64_t window, const std::vector<uint64_t>& changed) {
  std::vector<uint8_t> bits(window / 64, 0);
  for (uint64_t addr : changed) {
    const uint64_t word = (kCopyEnd - addr) / 8 - 1;
    bits[word / 8] |= static_cast<uint8_t>(1u << (word % 8));
  }
  return bits;
}

// A read long after the sample: only the return addresses count.
constexpr uint32_t kLate = 100'000;

bool holds(const WalkResult& w, const std::vector<uint8_t>& map) {
  return frames_past_copy_hold(w, CopyEndReread{kCopyEnd, Bytes(map.data(), map.size()), kLate}, ProcessMaps{});
}

// Return addresses into real code of this test: into beyond_callee after
// its call of beyond_leaf, and into beyond_caller after its direct call of
// beyond_callee.
struct Returns {
  uint64_t into_callee = 0;
  uint64_t into_caller = 0;
};
[[gnu::noinline]] void beyond_leaf(Returns& r) {
  r.into_callee = reinterpret_cast<uint64_t>(__builtin_return_address(0));
  asm volatile("" ::: "memory");
}
[[gnu::noinline]] void beyond_callee(Returns& r) {
  beyond_leaf(r);
  r.into_caller = reinterpret_cast<uint64_t>(__builtin_return_address(0));
  asm volatile("" ::: "memory");
}
[[gnu::noinline]] void beyond_caller(Returns& r) {
  beyond_callee(r);
  asm volatile("" ::: "memory");
}
// The same call through a pointer.
[[gnu::noinline]] void beyond_caller_through_pointer(Returns& r) {
  void (*volatile callee)(Returns&) = beyond_callee;
  callee(r);
  asm volatile("" ::: "memory");
}

}  // namespace

TEST_CASE("beyond check: the map says which words of the copy's end read the same", "[beyond_check]") {
  const std::vector<uint8_t> map = map_of(1024, {kCopyEnd - 8, kCopyEnd - 72});
  const CopyEndReread r{kCopyEnd, Bytes(map.data(), map.size())};
  CHECK_FALSE(r.same_at(kCopyEnd - 8));  // the copy's last word
  CHECK(r.same_at(kCopyEnd - 16));
  CHECK_FALSE(r.same_at(kCopyEnd - 72));
  CHECK(r.same_at(kCopyEnd - 1024));      // the window's first word
  CHECK_FALSE(r.same_at(kCopyEnd - 1032));  // below the window: not read again
  CHECK_FALSE(r.same_at(kCopyEnd));         // past the copy
  CHECK_FALSE(r.same_at(kCopyEnd - 12));    // not a word of the map
}

TEST_CASE("beyond check: frames past the copy hold when the copy's outermost return addresses read the same",
          "[beyond_check]") {
  // Return addresses at sp - 8 of each caller frame: kCopyEnd - 0x108,
  // -0x88, -0x48 in the copy; the frames at kCopyEnd + 0x40 and on were
  // walked from the bytes past it.
  const WalkResult w = walk_with_sps({kCopyEnd - 0x100, kCopyEnd - 0x80, kCopyEnd - 0x40, kCopyEnd + 0x40, kCopyEnd + 0x80});
  REQUIRE(frames_past(w, kCopyEnd));
  CHECK(holds(w, map_of(4096, {})));
  SECTION("words that are no return address may change: spilled locals, callees' writes through references") {
    CHECK(holds(w, map_of(4096, {kCopyEnd - 8, kCopyEnd - 0x50, kCopyEnd - 0x90, kCopyEnd - 0x200})));
  }
  SECTION("the outermost return address in the copy changed: its frame is no longer where it was") {
    CHECK_FALSE(holds(w, map_of(4096, {kCopyEnd - 0x48})));
  }
  SECTION("one further in changed") {
    CHECK_FALSE(holds(w, map_of(4096, {kCopyEnd - 0x108})));
  }
  SECTION("the outermost return address lies below the window: not read again, not shown") {
    const WalkResult big = walk_with_sps({kCopyEnd - 0x1800, kCopyEnd + 0x40});
    CHECK_FALSE(holds(big, map_of(4096, {})));
    CHECK(holds(big, map_of(8192, {})));
  }
  SECTION("no return address in the copy (one frame larger than it)") {
    CHECK_FALSE(holds(walk_with_sps({kCopyEnd + 0x40}), map_of(4096, {})));
  }
  SECTION("a walk with no frame past the copy holds whatever changed") {
    const WalkResult inside = walk_with_sps({kCopyEnd - 0x100, kCopyEnd - 0x80});
    CHECK_FALSE(frames_past(inside, kCopyEnd));
    CHECK(holds(inside, map_of(4096, {kCopyEnd - 0x88})));
  }
}

TEST_CASE("beyond check: a prompt read keeps a large frame's callers when the copy's end is quiet and they call it",
          "[beyond_check]") {
  // The copy ends inside a frame of beyond_callee whose callee changed when
  // the recorder read (its return address, the outermost in the copy, is
  // marked); the frame past the copy returns into beyond_caller.
  Returns r;
  beyond_caller(r);
  REQUIRE(r.into_callee != 0);
  REQUIRE(r.into_caller != 0);
  BinaryCache binaries;
  const std::shared_ptr<ProcessMaps> maps = testing::self_maps(binaries);
  WalkResult w;
  w.frames.push_back({0x401000, kCopyEnd - 0x7000, StepperKind::kSample, kFrameExactPc});
  w.frames.push_back({r.into_callee, kCopyEnd - 0x6000, StepperKind::kCfi, 0});  // a 24 KiB frame and more
  w.frames.push_back({r.into_caller, kCopyEnd + 0x2000, StepperKind::kCfi, 0});
  REQUIRE(may_call(*maps, w.frames[2], w.frames[1]));
  const std::vector<uint8_t> map = map_of(0x8000, {kCopyEnd - 0x6008, kCopyEnd - 0x4000});
  auto holds_after = [&](uint32_t delay_us, const std::vector<uint8_t>& m) {
    return frames_past_copy_hold(w, CopyEndReread{kCopyEnd, Bytes(m.data(), m.size()), delay_us}, *maps);
  };
  CHECK(holds_after(100, map));
  CHECK(holds_after(kPromptReadUs, map));
  SECTION("a read later than kPromptReadUs: only the return addresses count") {
    CHECK_FALSE(holds_after(kPromptReadUs + 1, map));
  }
  SECTION("a word of the copy's last kQuietTailBytes changed") {
    CHECK_FALSE(holds_after(100, map_of(0x8000, {kCopyEnd - 0x6008, kCopyEnd - kQuietTailBytes})));
    CHECK(holds_after(100, map_of(0x8000, {kCopyEnd - 0x6008, kCopyEnd - kQuietTailBytes - 8})));
  }
  SECTION("the outermost frame ends within the last kQuietTailBytes: its part of them must read the same") {
    w.frames[1].sp = kCopyEnd - 0x200;  // the return address into it at -0x208, its callee's frame below
    CHECK(holds_after(100, map_of(0x8000, {kCopyEnd - 0x208, kCopyEnd - 0x300})));
    CHECK_FALSE(holds_after(100, map_of(0x8000, {kCopyEnd - 0x208, kCopyEnd - 0x100})));
  }
  SECTION("a call through a pointer may have called it") {
    Returns through;
    beyond_caller_through_pointer(through);
    w.frames[2].pc = through.into_caller;
    CHECK(may_call(*maps, w.frames[2], w.frames[1]));
    CHECK(holds_after(100, map));
  }
  SECTION("the return address past the copy follows a direct call of another function") {
    w.frames[2].pc = r.into_callee;  // after beyond_callee's call of beyond_leaf
    CHECK_FALSE(may_call(*maps, w.frames[2], w.frames[1]));
    CHECK_FALSE(holds_after(100, map));
  }
}

TEST_CASE("beyond check: at most kCheckedReturns return addresses within kCheckedSpan below the outermost are compared",
          "[beyond_check]") {
  // Twelve frames 0x100 apart, the last in the copy at kCopyEnd - 0x40.
  std::vector<uint64_t> sps;
  for (int i = 11; i >= 0; --i) sps.push_back(kCopyEnd - 0x40 - 0x100 * static_cast<uint64_t>(i));
  sps.push_back(kCopyEnd + 0x100);
  const WalkResult w = walk_with_sps(sps);
  const uint64_t outermost = kCopyEnd - 0x48;
  CHECK_FALSE(holds(w, map_of(8192, {outermost - 0x100 * (kCheckedReturns - 1)})));
  CHECK(holds(w, map_of(8192, {outermost - 0x100 * kCheckedReturns})));
  SECTION("frames more than kCheckedSpan below the outermost are not compared") {
    const WalkResult sparse = walk_with_sps({kCopyEnd - 0x40 - kCheckedSpan - 0x100, kCopyEnd - 0x40, kCopyEnd + 0x40});
    CHECK(holds(sparse, map_of(8192, {kCopyEnd - 0x48 - kCheckedSpan - 0x100})));
  }
  SECTION("signal frames have no return address at sp - 8: skipped") {
    WalkResult with_signal = walk_with_sps({kCopyEnd - 0x100, kCopyEnd - 0x40, kCopyEnd + 0x40});
    with_signal.frames[2].flags = kFrameSignal | kFrameExactPc;
    CHECK(holds(with_signal, map_of(4096, {kCopyEnd - 0x48})));
    CHECK_FALSE(holds(with_signal, map_of(4096, {kCopyEnd - 0x108})));
  }
}
