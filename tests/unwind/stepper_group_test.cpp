// The group's shortcut (a remembered claim with a simple CFI rule, or a
// remembered bottom, answered without asking the steppers) must step every
// frame exactly as asking the steppers does. Two groups of the standard
// steppers, one with the shortcut and one without, step the same inputs and
// are compared: status, error, answering stepper, caller flags, and every
// known caller register. Inputs: every byte of the CFI fixture library's
// code and pcs across libc, on fake stacks (whole, cut short, registers
// missing), and self snapshots frame by frame with their stacks cut at each
// frame.

#include "unwind/stepper_group.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/self_snapshot.h"
#include "unwind/analysis_stepper.h"
#include "unwind/bottom_stepper.h"
#include "unwind/cfi_stepper.h"
#include "unwind/frame_pointer_stepper.h"
#include "unwind/signal_stepper.h"
#include "unwind/walker.h"
#include "unwind/wanderer_stepper.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// Forwards to a stepper and counts how often it was asked.
class CountingStepper : public FrameStepper {
 public:
  CountingStepper(std::unique_ptr<FrameStepper> inner, int& asked) : inner_(std::move(inner)), asked_(asked) {}
  StepperKind kind() const override { return inner_->kind(); }
  bool claims_by_pc_only() const override { return inner_->claims_by_pc_only(); }
  const CfiRule* simple_rule(const StepInput& in) override { return inner_->simple_rule(in); }
  StepResult step_into(const StepInput& in, Registers& caller) override {
    ++asked_;
    return inner_->step_into(in, caller);
  }

 private:
  std::unique_ptr<FrameStepper> inner_;
  int& asked_;
};

// The steppers and priorities of the standard chain (standard_chain.cpp).
StepperGroup standard_group(int& asked, bool shortcut) {
  StepperGroup g;
  auto add = [&](std::unique_ptr<FrameStepper> s, int priority) {
    g.add(std::make_unique<CountingStepper>(std::move(s), asked), priority);
  };
  add(std::make_unique<BottomStepper>(), 0);
  add(std::make_unique<SignalStepper>(), 10);
  add(std::make_unique<CfiStepper>(std::make_shared<CfiTableCache>()), 20);
  add(std::make_unique<FramePointerStepper>(), 30);
  add(std::make_unique<AnalysisStepper>(), 40);
  add(std::make_unique<WandererStepper>(), 50);
  g.set_rule_shortcut(shortcut);
  return g;
}

// What a step produced, comparable.
struct Seen {
  StepStatus status = StepStatus::kNotMe;
  WalkEnd error = WalkEnd::kBottom;
  uint8_t flags = 0;
  StepperKind by = StepperKind::kSample;
  uint32_t valid = 0;
  std::array<uint64_t, kRegCount> values{};  // known registers only

  bool operator==(const Seen&) const = default;
  std::string text() const {
    std::ostringstream out;
    out << "status " << int(status) << " error " << walk_end_name(error) << " flags " << int(flags) << " by "
        << stepper_name(by) << " valid " << std::hex << valid;
    for (int r = 0; r < kRegCount; ++r)
      if ((valid >> r) & 1) out << " r" << std::dec << r << "=" << std::hex << values[r];
    return out.str();
  }
};

Seen step_seen(StepperGroup& g, const StepInput& in) {
  Registers caller;
  const GroupResult r = g.step_into(in, caller);
  Seen s;
  s.status = r.result.status;
  s.by = r.by;
  if (s.status == StepStatus::kError) s.error = r.result.error;
  if (s.status != StepStatus::kSuccess) return s;
  s.flags = r.result.caller_flags;
  s.valid = caller.valid_mask();
  for (int reg = 0; reg < kRegCount; ++reg)
    if (caller.has(reg)) s.values[reg] = caller.get(reg);
  return s;
}

// Steps inputs through a group with the shortcut (twice: the first fills
// the claim, the second may answer from it) and one without; counts
// disagreements and how often the shortcut answered.
struct Differ {
  int fast_asked = 0;
  int full_asked = 0;
  StepperGroup fast = standard_group(fast_asked, true);
  StepperGroup full = standard_group(full_asked, false);
  size_t compared = 0;
  size_t shortcut = 0;
  size_t successes = 0;
  size_t mismatches = 0;
  std::string first_mismatch;

  Seen check(const StepInput& in) {
    const Seen want = step_seen(full, in);
    const Seen first = step_seen(fast, in);
    const int before = fast_asked;
    const Seen again = step_seen(fast, in);
    shortcut += fast_asked == before;
    successes += want.status == StepStatus::kSuccess;
    ++compared;
    if (!(first == want) || !(again == want)) {
      if (mismatches++ == 0) {
        std::ostringstream out;
        out << "pc " << std::hex << in.regs.pc() << " sp " << in.regs.sp() << " exact " << in.exact_pc
            << "\n  steppers: " << want.text() << "\n  first:    " << first.text()
            << "\n  again:    " << again.text();
        first_mismatch = out.str();
      }
    }
    return want;
  }
};

constexpr uint64_t kStackBase = 0x7ffd0000;

// Random words, with some pointing back into the stack and some at `code`,
// so rules find plausible frames.
std::vector<uint8_t> random_stack(std::mt19937_64& rng, size_t words, uint64_t code_lo, uint64_t code_hi) {
  std::vector<uint8_t> bytes(words * 8);
  for (size_t i = 0; i < words; ++i) {
    uint64_t v = rng();
    switch (v % 3) {
      case 0: v = kStackBase + 8 * (rng() % words); break;
      case 1: v = code_lo + rng() % (code_hi - code_lo); break;
      default: break;
    }
    std::memcpy(bytes.data() + 8 * i, &v, 8);
  }
  return bytes;
}

// Register sets to try: all callee-saved registers known, rbp unknown, and
// only rip/rsp.
std::vector<Registers> register_sets(std::mt19937_64& rng, uint64_t pc, uint64_t sp, uint64_t bp) {
  Registers all;
  all.set(kRip, pc);
  all.set(kRsp, sp);
  all.set(kRbp, bp);
  for (int r : {kRbx, kR12, kR13, kR14, kR15}) all.set(r, rng());
  Registers no_rbp = all;
  no_rbp.clear(kRbp);
  Registers bare;
  bare.set(kRip, pc);
  bare.set(kRsp, sp);
  return {all, no_rbp, bare};
}

// Every pc in [lo, hi) at `stride`, exact and as a return address, on a fake
// stack whole and cut short.
void check_pcs(Differ& d, const ProcessMaps& maps, uint64_t lo, uint64_t hi, uint64_t stride) {
  std::mt19937_64 rng(42);
  const std::vector<uint8_t> bytes = random_stack(rng, 256, lo, hi);
  for (size_t size : {bytes.size(), size_t{300}, size_t{264}, size_t{256}, size_t{200}, size_t{8}, size_t{0}}) {
    const BufferMemory stack(kStackBase, Bytes(bytes.data(), size));
    for (uint64_t pc = lo; pc < hi; pc += stride) {
      for (bool exact : {true, false}) {
        const Mapping* mapping = maps.find(exact ? pc : pc - 1);
        for (const Registers& regs : register_sets(rng, pc, kStackBase + 0x40, kStackBase + 0xc0))
          d.check(StepInput{regs, stack, mapping, maps, exact, exact ? 0 : 1});
      }
    }
  }
}

// Up to the top of the stack (a StepperGroup alone is tens of KiB of claims).
constexpr size_t kSnapshotStack = size_t{1} << 20;

__attribute__((noinline, noclone)) SelfSnapshot group_snapshot_deep(int depth) {
  if (depth == 0) return capture_self(kSnapshotStack);
  SelfSnapshot s = group_snapshot_deep(depth - 1);
  asm volatile("" : : "r"(depth) : "memory");
  return s;
}

// A snapshot taken inside qsort's comparator: libc frames (no frame
// pointers, callee-saved registers at CFA - k) under this program's.
SelfSnapshot g_in_qsort;
int compare_and_capture(const void* a, const void* b) {
  if (g_in_qsort.stack.empty()) g_in_qsort = capture_self(kSnapshotStack);
  return *static_cast<const int*>(a) - *static_cast<const int*>(b);
}
__attribute__((noinline, noclone)) SelfSnapshot group_snapshot_in_qsort() {
  g_in_qsort = SelfSnapshot{};
  std::vector<int> v = {5, 3, 9, 1, 7, 2, 8};
  qsort(v.data(), v.size(), sizeof(int), compare_and_capture);
  return std::move(g_in_qsort);
}

std::vector<SelfSnapshot> snapshots() {
  std::vector<SelfSnapshot> out;
  out.push_back(group_snapshot_deep(0));
  out.push_back(group_snapshot_deep(5));
  out.push_back(group_snapshot_in_qsort());
  return out;
}

}  // namespace

TEST_CASE("group shortcut: every pc of the CFI fixtures steps as the steppers do", "[group]") {
  auto binary = ElfBinary::open(SWPROF_CFI_FIXTURE);
  REQUIRE(binary);
  const uint64_t load = 0x7f0000000000;
  const ProcessMaps maps = fixture_maps(binary, load);
  const Mapping& m = maps.mappings().front();
  auto differ = std::make_unique<Differ>();  // large: keep it off the snapshot's stack
  Differ& d = *differ;
  check_pcs(d, maps, m.start + 1, m.end, 1);
  INFO(d.first_mismatch);
  UNSCOPED_INFO("compared " << d.compared << " successes " << d.successes << " shortcut " << d.shortcut);
  CHECK(d.mismatches == 0);
  CHECK(d.successes > 1000);
  CHECK(d.shortcut > 1000);
}

TEST_CASE("group shortcut: pcs across libc step as the steppers do", "[group]") {
  BinaryCache binaries;
  auto maps = self_maps(binaries);
  const Mapping* libc = nullptr;
  for (const Mapping& m : maps->mappings())
    if (m.binary && m.path.find("libc.so") != std::string::npos) libc = &m;
  REQUIRE(libc);
  auto differ = std::make_unique<Differ>();  // large: keep it off the snapshot's stack
  Differ& d = *differ;
  check_pcs(d, *maps, libc->start + 1, libc->end, 499);
  INFO(d.first_mismatch);
  UNSCOPED_INFO("compared " << d.compared << " successes " << d.successes << " shortcut " << d.shortcut);
  CHECK(d.mismatches == 0);
  CHECK(d.successes > 1000);
  CHECK(d.shortcut > 1000);
}

TEST_CASE("group shortcut: self snapshots step as the steppers do frame by frame with the stack cut short",
          "[group]") {
  auto differ = std::make_unique<Differ>();  // large: keep it off the snapshot's stack
  Differ& d = *differ;
  for (const SelfSnapshot& s : snapshots()) {
    // The frames' stack pointers, from a walk without the shortcut.
    std::vector<uint64_t> sps;
    {
      const SampleStackMemory memory = s.memory();
      Registers regs = s.regs;
      bool exact = true;
      for (int depth = 0; depth < 64; ++depth) {
        sps.push_back(regs.sp());
        Registers caller;
        const GroupResult r = d.full.step_into(
            StepInput{regs, memory, s.maps->find(exact ? regs.pc() : regs.pc() - 1), *s.maps, exact, depth}, caller);
        if (r.result.status != StepStatus::kSuccess || caller.sp() <= regs.sp()) break;
        regs = caller;
        exact = (r.result.caller_flags & kFrameExactPc) != 0;
      }
    }
    REQUIRE(sps.size() > 4);
    // Cut the copy a little above each frame's sp, then step every frame
    // (every register set) until the steppers stop.
    std::vector<size_t> cuts = {s.stack.size()};
    for (uint64_t sp : sps)
      for (uint64_t extra : {0, 8, 16, 24, 40, 64})
        if (sp + extra - s.regs.sp() < s.stack.size()) cuts.push_back(sp + extra - s.regs.sp());
    std::mt19937_64 rng(7);
    for (size_t cut : cuts) {
      const SampleStackMemory memory(s.regs.sp(), Bytes(s.stack.data(), cut));
      for (Registers regs : {s.regs, register_sets(rng, s.regs.pc(), s.regs.sp(), s.regs.bp())[1]}) {
        bool exact = true;
        for (int depth = 0; depth < 64; ++depth) {
          const StepInput in{regs, memory, s.maps->find(exact ? regs.pc() : regs.pc() - 1), *s.maps, exact, depth};
          const Seen want = d.check(in);
          if (want.status != StepStatus::kSuccess) break;
          Registers caller;
          const GroupResult r = d.full.step_into(in, caller);
          if (caller.sp() <= regs.sp()) break;
          regs = caller;
          exact = (r.result.caller_flags & kFrameExactPc) != 0;
        }
      }
    }
  }
  INFO(d.first_mismatch);
  UNSCOPED_INFO("compared " << d.compared << " successes " << d.successes << " shortcut " << d.shortcut);
  CHECK(d.mismatches == 0);
  CHECK(d.shortcut > 100);
}

TEST_CASE("group shortcut: walkers with and without it give the same walks", "[group]") {
  int fast_asked = 0;
  int full_asked = 0;
  auto fast_walker = std::make_unique<Walker>(standard_group(fast_asked, true));
  auto full_walker = std::make_unique<Walker>(standard_group(full_asked, false));
  Walker& fast = *fast_walker;
  Walker& full = *full_walker;
  size_t frames = 0;
  for (const SelfSnapshot& s : snapshots()) {
    for (size_t cut : {s.stack.size(), s.stack.size() / 2, size_t{512}, size_t{100}, size_t{0}}) {
      const SampleStackMemory memory(s.regs.sp(), Bytes(s.stack.data(), std::min(cut, s.stack.size())));
      const WalkResult want = full.walk(s.regs, memory, *s.maps);
      for (int repeat = 0; repeat < 3; ++repeat) {  // later walks answer from the claims
        const WalkResult got = fast.walk(s.regs, memory, *s.maps);
        CHECK(got.end == want.end);
        REQUIRE(got.frames.size() == want.frames.size());
        for (size_t i = 0; i < got.frames.size(); ++i) {
          INFO("frame " << i);
          CHECK(got.frames[i].pc == want.frames[i].pc);
          CHECK(got.frames[i].sp == want.frames[i].sp);
          CHECK(got.frames[i].stepper == want.frames[i].stepper);
          CHECK(got.frames[i].flags == want.frames[i].flags);
        }
        frames += got.frames.size();
      }
    }
  }
  CHECK(frames > 30);
  CHECK(fast_asked < 3 * full_asked);  // the shortcut answered frames of the later walks
}
