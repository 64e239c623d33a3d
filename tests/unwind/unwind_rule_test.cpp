// A cached rule (what the steppers' answer for a frame says about every
// frame at its address) must step every frame exactly as asking the
// steppers does: applied with apply_rule(), and, for the fast kinds, with
// apply_fast_rule() on rip, rsp and rbp. The standard steppers step the
// inputs, then the rule of their answer steps them again, and the two are
// compared: kind, failure, answering stepper, caller flags, and every known
// caller register. Inputs: every byte of the CFI fixture library's
// code and pcs across libc, on fake stacks (whole, cut short, registers
// missing), and self snapshots frame by frame with their stacks cut at each
// frame.

#include "unwind/unwind_rule.h"

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
#include "unwind/stepper_list.h"
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
  StepAnswer step(const StepInput& in, Registers& caller) override {
    ++asked_;
    return inner_->step(in, caller);
  }

 private:
  std::unique_ptr<FrameStepper> inner_;
  int& asked_;
};

// The steppers of the standard chain, in its order (standard_chain.cpp).
StepperList standard_list(int& asked) {
  StepperList list;
  auto add = [&](std::unique_ptr<FrameStepper> s) { list.add(std::make_unique<CountingStepper>(std::move(s), asked)); };
  add(std::make_unique<BottomStepper>());
  add(std::make_unique<SignalStepper>());
  add(std::make_unique<CfiStepper>(std::make_shared<CfiTableCache>()));
  add(std::make_unique<FramePointerStepper>());
  add(std::make_unique<AnalysisStepper>());
  add(std::make_unique<WandererStepper>());
  return list;
}

// What a step produced, comparable.
struct Seen {
  StepKind kind = StepKind::kNotMine;
  WalkEnd failure = WalkEnd::kBottom;
  uint8_t flags = 0;
  StepperKind by = StepperKind::kSample;
  uint32_t valid = 0;
  std::array<uint64_t, kRegCount> values{};  // known registers only

  bool operator==(const Seen&) const = default;
  std::string text() const {
    std::ostringstream out;
    out << "kind " << int(kind) << " failure " << walk_end_name(failure) << " flags " << int(flags) << " by "
        << stepper_name(by) << " valid " << std::hex << valid;
    for (int r = 0; r < kRegCount; ++r)
      if ((valid >> r) & 1) out << " r" << std::dec << r << "=" << std::hex << values[r];
    return out.str();
  }
};

Seen seen(const StepAnswer& answer, StepperKind by, const Registers& caller) {
  Seen s;
  s.kind = answer.kind;
  s.by = by;
  if (s.kind == StepKind::kFailed) s.failure = answer.failure;
  if (s.kind != StepKind::kCaller) return s;
  s.flags = answer.caller_flags;
  s.valid = caller.valid_mask();
  for (int reg = 0; reg < kRegCount; ++reg)
    if (caller.has(reg)) s.values[reg] = caller.get(reg);
  return s;
}

// A frame stepped as the walker steps a frame whose rule it has cached:
// the rule applied, or (when it does not decide the frame) the steppers
// asked from the one it names. `applied` says whether the rule decided.
Seen step_by_rule(StepperList& list, const UnwindRule& rule, const StepInput& in, bool& applied) {
  Registers caller;
  const Applied a = apply_rule(rule, in.regs, in.stack, caller);
  applied = a.kind == StepKind::kCaller || a.kind == StepKind::kBottom;
  if (applied) return seen(StepAnswer::of(a), rule.by, caller);
  const StepperList::Asked asked = list.ask(in, caller, rule.first_to_ask());
  return seen(asked.answer, asked.by, caller);
}

// A fast rule on rip, rsp and rbp alone applies exactly when the rule
// applies to every register, and gives the same rip, rsp and rbp.
bool fast_rule_agrees(const UnwindRule& rule, const StepInput& in) {
  const std::optional<ContiguousView> view = in.stack.contiguous();
  const std::optional<WordView> words = view ? WordView::of(*view) : std::nullopt;
  if (!rule.fast() || !words) return true;
  Registers full;
  const Applied a = apply_rule(rule, in.regs, in.stack, full);
  const FrameCore frame{in.regs.pc(), in.regs.sp(), in.regs.bp(), in.regs.has(kRbp)};
  const std::optional<FrameCore> caller = apply_fast_rule(rule, frame, *words);
  if (!caller) return a.kind != StepKind::kCaller;
  return a.kind == StepKind::kCaller && caller->pc == full.pc() && caller->sp == full.sp() &&
         caller->bp_known == full.has(kRbp) && (!caller->bp_known || caller->bp == full.bp());
}

// Steps inputs by asking the steppers, and again by the rule their answer
// gave (as a walker with that rule cached would); counts disagreements and
// how often the rule decided without asking.
struct Differ {
  int asked_count = 0;
  StepperList list = standard_list(asked_count);
  size_t compared = 0;
  size_t decided_by_rule = 0;
  size_t fast = 0;  // inputs whose rule was a fast one
  size_t successes = 0;
  size_t mismatches = 0;
  std::string first_mismatch;

  Seen ask(const StepInput& in, std::optional<UnwindRule>* rule = nullptr) {
    Registers caller;
    const StepperList::Asked asked = list.ask(in, caller);
    if (rule) *rule = asked.rule;
    return seen(asked.answer, asked.by, caller);
  }

  Seen check(const StepInput& in) {
    std::optional<UnwindRule> rule;
    const Seen want = ask(in, &rule);
    successes += want.kind == StepKind::kCaller;
    ++compared;
    if (!rule) return want;
    bool applied = false;
    const Seen again = step_by_rule(list, *rule, in, applied);
    decided_by_rule += applied;
    fast += rule->fast();
    if (!(again == want) || !fast_rule_agrees(*rule, in)) {
      if (mismatches++ == 0) {
        std::ostringstream out;
        out << "pc " << std::hex << in.regs.pc() << " sp " << in.regs.sp() << " exact " << in.address.is_exact()
            << " rule kind " << std::dec << int(rule->kind) << "\n  steppers: " << want.text()
            << "\n  by rule:  " << again.text();
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
          d.check(StepInput{regs, stack, mapping, maps, FrameAddress::of(regs.pc(), exact), exact ? 0 : 1});
      }
    }
  }
}

// Up to the top of the stack.
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

TEST_CASE("unwind rule: every pc of the CFI fixtures steps by its cached rule as the steppers do", "[rule]") {
  auto binary = ElfBinary::open(SWPROF_CFI_FIXTURE);
  REQUIRE(binary);
  const uint64_t load = 0x7f0000000000;
  const ProcessMaps maps = fixture_maps(binary, load);
  const Mapping& m = maps.mappings().front();
  auto differ = std::make_unique<Differ>();  // large: keep it off the snapshot's stack
  Differ& d = *differ;
  check_pcs(d, maps, m.start + 1, m.end, 1);
  INFO(d.first_mismatch);
  UNSCOPED_INFO("compared " << d.compared << " successes " << d.successes << " decided by rule " << d.decided_by_rule);
  CHECK(d.mismatches == 0);
  CHECK(d.fast > 1000);
  CHECK(d.successes > 1000);
  CHECK(d.decided_by_rule > 1000);
}

TEST_CASE("unwind rule: pcs across libc step by their cached rules as the steppers do", "[rule]") {
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
  UNSCOPED_INFO("compared " << d.compared << " successes " << d.successes << " decided by rule " << d.decided_by_rule);
  CHECK(d.mismatches == 0);
  CHECK(d.successes > 1000);
  CHECK(d.decided_by_rule > 1000);
}

TEST_CASE("unwind rule: self snapshots step by cached rules as the steppers do frame by frame with the stack cut short",
          "[rule]") {
  auto differ = std::make_unique<Differ>();  // large: keep it off the snapshot's stack
  Differ& d = *differ;
  for (const SelfSnapshot& s : snapshots()) {
    // The frames' stack pointers, from a walk asking the steppers.
    std::vector<uint64_t> sps;
    {
      const SampleStackMemory memory = s.memory();
      Registers regs = s.regs;
      bool exact = true;
      for (int depth = 0; depth < 64; ++depth) {
        sps.push_back(regs.sp());
        Registers caller;
        const StepperList::Asked r = d.list.ask(
            StepInput{regs, memory, s.maps->find(exact ? regs.pc() : regs.pc() - 1), *s.maps,
                      FrameAddress::of(regs.pc(), exact), depth},
            caller);
        if (r.answer.kind != StepKind::kCaller || caller.sp() <= regs.sp()) break;
        regs = caller;
        exact = (r.answer.caller_flags & kFrameExactPc) != 0;
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
          const StepInput in{regs, memory, s.maps->find(exact ? regs.pc() : regs.pc() - 1), *s.maps, FrameAddress::of(regs.pc(), exact), depth};
          const Seen want = d.check(in);
          if (want.kind != StepKind::kCaller) break;
          Registers caller;
          const StepperList::Asked r = d.list.ask(in, caller);
          if (caller.sp() <= regs.sp()) break;
          regs = caller;
          exact = (r.answer.caller_flags & kFrameExactPc) != 0;
        }
      }
    }
  }
  INFO(d.first_mismatch);
  UNSCOPED_INFO("compared " << d.compared << " successes " << d.successes << " decided by rule " << d.decided_by_rule);
  CHECK(d.mismatches == 0);
  CHECK(d.decided_by_rule > 100);
}

TEST_CASE("unwind rule: walkers with and without the rule cache give the same walks", "[rule]") {
  int fast_asked = 0;
  int full_asked = 0;
  auto fast_walker = std::make_unique<Walker>(standard_list(fast_asked), WalkerOptions{256, true});
  auto full_walker = std::make_unique<Walker>(standard_list(full_asked), WalkerOptions{256, false});
  Walker& fast = *fast_walker;
  Walker& full = *full_walker;
  size_t frames = 0;
  for (const SelfSnapshot& s : snapshots()) {
    for (size_t cut : {s.stack.size(), s.stack.size() / 2, size_t{512}, size_t{100}, size_t{0}}) {
      const SampleStackMemory memory(s.regs.sp(), Bytes(s.stack.data(), std::min(cut, s.stack.size())));
      const WalkResult want = full.walk(s.regs, memory, *s.maps);
      for (int repeat = 0; repeat < 3; ++repeat) {  // later walks step by cached rules
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
  CHECK(fast_asked < 3 * full_asked);  // cached rules stepped frames of the later walks
  // The same at the walker: frames stepped by a cached rule ask no stepper.
  // (Frame-pointer frames still ask, from the stepper their rule names: a
  // build without CFI in this test's own code, as under the sanitizers, asks
  // nearly as often per walk as without the cache.)
  CHECK(fast.stepper_asks() < 3 * full.stepper_asks());
  CHECK(full.rule_cache().inserts() == 0);
}
