#include "unwind/libunwind_unwinder.h"

#include <signal.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "support/self_snapshot.h"

using namespace swprof;
using namespace swprof::testing;

// A known call chain above capture_self(). The asm barrier after each call
// keeps the compiler from turning it into a tail call or folding the
// functions together.
__attribute__((noinline, noclone)) SelfSnapshot lu_chain_c() {
  SelfSnapshot s = capture_self();
  asm volatile("" ::: "memory");
  return s;
}
__attribute__((noinline, noclone)) SelfSnapshot lu_chain_b() {
  SelfSnapshot s = lu_chain_c();
  asm volatile("" ::: "memory");
  return s;
}
__attribute__((noinline, noclone)) SelfSnapshot lu_chain_a() {
  SelfSnapshot s = lu_chain_b();
  asm volatile("" ::: "memory");
  return s;
}

namespace {

// Index of the first name at or after `from` that contains `part`, or -1.
long find_name(const std::vector<std::string>& names, const std::string& part, size_t from = 0) {
  for (size_t i = from; i < names.size(); ++i)
    if (names[i].find(part) != std::string::npos) return static_cast<long>(i);
  return -1;
}

std::string describe(const WalkResult& walk, const ProcessMaps& maps) {
  std::string out = std::string("end: ") + walk_end_name(walk.end) + "\n";
  const auto names = frame_names(walk.frames, maps);
  for (size_t i = 0; i < names.size(); ++i) out += "  #" + std::to_string(i) + " " + names[i] + "\n";
  return out;
}

bool same_frames(const WalkResult& a, const WalkResult& b) {
  if (a.end != b.end || a.frames.size() != b.frames.size()) return false;
  for (size_t i = 0; i < a.frames.size(); ++i) {
    const Frame& x = a.frames[i];
    const Frame& y = b.frames[i];
    if (x.pc != y.pc || x.sp != y.sp || x.stepper != y.stepper || x.flags != y.flags) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("libunwind unwinds a self snapshot through a known call chain to the bottom", "[libunwind]") {
  const SelfSnapshot s = lu_chain_a();
  LibunwindUnwinder unwinder;
  const WalkResult walk = unwinder.unwind(s.regs, s.memory(), *s.maps);
  INFO(describe(walk, *s.maps));
  const auto names = frame_names(walk.frames, *s.maps);

  REQUIRE(walk.frames.size() >= 5);
  CHECK(walk.frames[0].stepper == StepperKind::kSample);
  CHECK(walk.frames[0].flags == kFrameExactPc);
  CHECK(walk.frames[0].pc == s.regs.pc());
  CHECK(walk.frames[0].sp == s.regs.sp());
  CHECK(names[0].find("capture_self") != std::string::npos);
  CHECK(names[1].find("lu_chain_c") != std::string::npos);
  CHECK(names[2].find("lu_chain_b") != std::string::npos);
  CHECK(names[3].find("lu_chain_a") != std::string::npos);
  for (size_t i = 1; i < walk.frames.size(); ++i) {
    CHECK(walk.frames[i].stepper == StepperKind::kLibunwind);
    CHECK(walk.frames[i].sp > walk.frames[i - 1].sp);
  }
  // On through Catch2 and main to the C runtime's outermost frame.
  CHECK(std::find(names.begin() + 4, names.end(), "main") != names.end());
  CHECK(names.back() == "_start");
  CHECK(walk.end == WalkEnd::kBottom);
  CHECK(walk.complete());
}

TEST_CASE("libunwind stops at max_depth", "[libunwind]") {
  const SelfSnapshot s = lu_chain_a();
  LibunwindUnwinder unwinder;
  const WalkResult walk = unwinder.unwind(s.regs, s.memory(), *s.maps, 3);
  CHECK(walk.frames.size() == 3);
  CHECK(walk.end == WalkEnd::kMaxDepth);
}

TEST_CASE("libunwind reports a truncated stack copy as exhausted", "[libunwind]") {
  SelfSnapshot s = lu_chain_a();
  LibunwindUnwinder unwinder;
  const WalkResult full = unwinder.unwind(s.regs, s.memory(), *s.maps);
  REQUIRE(full.frames.size() > 4);

  SECTION("128 bytes") {
    s.stack.resize(128);
    const WalkResult walk = unwinder.unwind(s.regs, s.memory(), *s.maps);
    INFO(describe(walk, *s.maps));
    CHECK(walk.end == WalkEnd::kStackExhausted);
    CHECK(walk.frames.size() >= 1);
    CHECK(walk.frames.size() < full.frames.size());
  }
  SECTION("cut inside a caller's frame") {
    // Keep the copy up to just below lu_chain_a's frame: the frames above
    // it are found, then the walk runs out of stack.
    const auto names = frame_names(full.frames, *s.maps);
    const long a_at = find_name(names, "lu_chain_a");
    REQUIRE(a_at > 0);
    s.stack.resize(full.frames[a_at].sp - s.regs.sp() - 8);
    const WalkResult walk = unwinder.unwind(s.regs, s.memory(), *s.maps);
    INFO(describe(walk, *s.maps));
    CHECK(walk.end == WalkEnd::kStackExhausted);
    REQUIRE(walk.frames.size() >= 3);
    for (size_t i = 0; i < walk.frames.size(); ++i) CHECK(walk.frames[i].pc == full.frames[i].pc);
  }
  SECTION("no stack at all") {
    s.stack.clear();
    const WalkResult walk = unwinder.unwind(s.regs, s.memory(), *s.maps);
    CHECK(walk.end == WalkEnd::kStackExhausted);
    CHECK(walk.frames.size() == 1);
  }
}

TEST_CASE("libunwind survives garbage stack bytes", "[libunwind]") {
  SelfSnapshot s = lu_chain_a();
  LibunwindUnwinder unwinder;
  const uint64_t code = s.regs.pc();  // a real code address, to fake return addresses with
  const size_t words = s.stack.size() / 8;

  auto fill = [&](auto word_at) {
    for (size_t i = 0; i < words; ++i) {
      const uint64_t w = word_at(i);
      std::memcpy(s.stack.data() + i * 8, &w, 8);
    }
  };
  SECTION("a byte pattern") {
    std::fill(s.stack.begin(), s.stack.end(), uint8_t{0x41});
    s.regs.set(kRbp, 0x4141414141414141);
    const WalkResult walk = unwinder.unwind(s.regs, s.memory(), *s.maps);
    INFO(describe(walk, *s.maps));
    CHECK_FALSE(walk.complete());
    CHECK(walk.frames.size() < 5);
  }
  SECTION("zeros") {
    std::fill(s.stack.begin(), s.stack.end(), uint8_t{0});
    const WalkResult walk = unwinder.unwind(s.regs, s.memory(), *s.maps);
    INFO(describe(walk, *s.maps));
    CHECK(walk.frames.size() < 5);
  }
  SECTION("every word a return address into code") {
    fill([&](size_t) { return code; });
    const WalkResult walk = unwinder.unwind(s.regs, s.memory(), *s.maps, 64);
    INFO(describe(walk, *s.maps));
    CHECK(walk.frames.size() <= 64);
    CHECK_FALSE(walk.complete());
  }
  SECTION("words pointing into the stack itself") {
    fill([&](size_t i) { return s.regs.sp() + i * 8 + ((i % 2) ? 8 : 0); });
    s.regs.set(kRbp, s.regs.sp() + 64);
    const WalkResult walk = unwinder.unwind(s.regs, s.memory(), *s.maps);
    INFO(describe(walk, *s.maps));
    CHECK(walk.frames.size() < 5);
    CHECK_FALSE(walk.complete());
  }
}

TEST_CASE("libunwind without registers reports it", "[libunwind]") {
  const SelfSnapshot s = lu_chain_a();
  LibunwindUnwinder unwinder;
  const WalkResult walk = unwinder.unwind(Registers{}, s.memory(), *s.maps);
  CHECK(walk.frames.empty());
  CHECK(walk.end == WalkEnd::kNoRegisters);
}

TEST_CASE("libunwind with a pc in no mapping ends there", "[libunwind]") {
  SelfSnapshot s = lu_chain_a();
  s.regs.set(kRip, 0x10);
  s.regs.set(kRbp, 0);
  // Without unwind info and without a frame pointer, libunwind guesses a leaf
  // function and takes the word at sp as the return address. Whatever the
  // capture left there (often a code address) must not decide the walk: an
  // unmapped value makes the guess end where the test expects, every run.
  REQUIRE(s.stack.size() >= 8);
  const uint64_t unmapped = 0x20;
  std::memcpy(s.stack.data(), &unmapped, sizeof unmapped);
  LibunwindUnwinder unwinder;
  const WalkResult walk = unwinder.unwind(s.regs, s.memory(), *s.maps);
  INFO(describe(walk, *s.maps));
  CHECK(walk.frames.size() == 1);
  CHECK_FALSE(walk.complete());
  CHECK(walk.end == WalkEnd::kUnmappedPc);
}

namespace {

std::optional<SelfSnapshot> g_signal_snapshot;

__attribute__((noinline, noclone)) void lu_signal_handler(int) {
  g_signal_snapshot = capture_self();
  asm volatile("" ::: "memory");
}

__attribute__((noinline, noclone)) void lu_raise_signal() {
  raise(SIGUSR2);
  asm volatile("" ::: "memory");
}

}  // namespace

TEST_CASE("libunwind steps through a signal frame into the interrupted context", "[libunwind]") {
  struct sigaction sa {}, old {};
  sa.sa_handler = lu_signal_handler;
  sigemptyset(&sa.sa_mask);
  REQUIRE(sigaction(SIGUSR2, &sa, &old) == 0);
  g_signal_snapshot.reset();
  lu_raise_signal();
  sigaction(SIGUSR2, &old, nullptr);
  REQUIRE(g_signal_snapshot);
  const SelfSnapshot& s = *g_signal_snapshot;

  LibunwindUnwinder unwinder;
  const WalkResult walk = unwinder.unwind(s.regs, s.memory(), *s.maps);
  INFO(describe(walk, *s.maps));
  const auto names = frame_names(walk.frames, *s.maps);
  const long handler_at = find_name(names, "lu_signal_handler");
  REQUIRE(handler_at == 1);
  // Exactly one frame is the interrupted context: after the trampoline,
  // inside raise(), below the function that raised.
  long signal_at = -1;
  for (size_t i = 0; i < walk.frames.size(); ++i) {
    if (!(walk.frames[i].flags & kFrameSignal)) continue;
    CHECK(signal_at == -1);
    signal_at = static_cast<long>(i);
    CHECK(walk.frames[i].flags & kFrameExactPc);
  }
  CHECK(signal_at == handler_at + 2);
  const long raiser_at = find_name(names, "lu_raise_signal");
  CHECK(raiser_at > signal_at);
  CHECK(walk.end == WalkEnd::kBottom);
  // The second walk comes from libunwind's rule cache and must agree.
  const WalkResult again = unwinder.unwind(s.regs, s.memory(), *s.maps);
  INFO("from the cache: " << describe(again, *s.maps));
  CHECK(same_frames(walk, again));
}

TEST_CASE("libunwind gives the same walk warm and cold", "[libunwind]") {
  const SelfSnapshot s = lu_chain_a();
  LibunwindUnwinder unwinder;
  const auto memory = s.memory();
  const WalkResult first = unwinder.unwind(s.regs, memory, *s.maps);
  REQUIRE(first.complete());

  constexpr int kRounds = 2000;
  size_t frames = 0;
  bool all_same = true;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRounds; ++i) {
    const WalkResult again = unwinder.unwind(s.regs, memory, *s.maps);
    frames += again.frames.size();
    all_same = all_same && same_frames(first, again);
  }
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  CHECK(all_same);
  // A fresh unwinder (cold caches) agrees with the warm one.
  LibunwindUnwinder cold;
  CHECK(same_frames(first, cold.unwind(s.regs, memory, *s.maps)));
  WARN("libunwind: " << first.frames.size() << " frames, " << (ns / static_cast<long>(frames)) << " ns/frame over "
                     << kRounds << " walks");
}

TEST_CASE("libunwind forgets cached rules when the maps change", "[libunwind]") {
  const SelfSnapshot s = lu_chain_a();
  const auto memory = s.memory();
  // The same address space, except that the test binary's unwind tables are
  // looked up 4 KiB off: other rules for the same pcs.
  ProcessMaps shifted;
  const Mapping* own = s.maps->find(s.regs.pc());
  REQUIRE(own);
  for (Mapping m : s.maps->mappings()) {
    if (m.start == own->start) m.bias += 0x1000;
    shifted.add(std::move(m));
  }
  LibunwindUnwinder warm, cold;
  const WalkResult real = warm.unwind(s.regs, memory, *s.maps);
  const WalkResult expected = cold.unwind(s.regs, memory, shifted);
  REQUIRE_FALSE(same_frames(real, expected));
  CHECK(same_frames(warm.unwind(s.regs, memory, shifted), expected));
  CHECK(same_frames(warm.unwind(s.regs, memory, *s.maps), real));
}
