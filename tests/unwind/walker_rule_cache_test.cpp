// The walker's rule cache (walker.h) against the truth and against walks
// that ask the steppers for every frame. Random call chains are
// simulated the way a program makes them, outermost call first: each callee
// pushes its return address, saves some callee-saved registers below it,
// may set rbp (or, for frames only a stepper that is asked can step, rbx)
// to its frame, then clobbers what it saved. Frames of the first kind are
// stepped by a table of simple CFI rules (cached after the first walk);
// the second kind by a stepper that needs rbx, which the walker must
// rebuild from the rules of the cached frames below it. The walks must
// give the simulated frames exactly; on cut or scribbled stacks, walks with
// and without the rule cache must be the same.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "unwind/bottom_stepper.h"
#include "unwind/cfi_rule_apply.h"
#include "unwind/cfi_stepper.h"
#include "unwind/walker.h"

using namespace swprof;

namespace {

constexpr uint64_t kCodeStart = 0x401000;
constexpr uint64_t kStackBase = 0x7ffd00000000;
constexpr size_t kStackSize = 64 * 1024;
constexpr std::array<uint8_t, 6> kCalleeSaved = {kRbp, kRbx, kR12, kR13, kR14, kR15};
constexpr std::array<SavedSlot, 6> kCalleeSavedSlot = {kSlotRbp, kSlotRbx, kSlotR12, kSlotR13, kSlotR14, kSlotR15};

// Steps frames whose pc has a rule in the table (simple rules, cached by
// the walker), not_mine for others.
class TableStepper : public FrameStepper {
 public:
  TableStepper(const std::map<uint64_t, CfiRule>& rules, int& asked) : rules_(rules), asked_(asked) {}
  StepperKind kind() const override { return StepperKind::kCfi; }
  StepAnswer step(const StepInput& in, Registers& caller) override {
    ++asked_;
    auto it = rules_.find(in.regs.pc());
    if (it == rules_.end()) return StepAnswer::not_mine_by_pc();
    return StepAnswer::by_rule(CfiStepper::apply_into(it->second, in.regs, in.stack, caller),
                               UnwindRule::of_cfi_row(it->second));
  }

 private:
  const std::map<uint64_t, CfiRule>& rules_;
  int& asked_;
};

// Frames at its pcs have CFA = rbx + 16, the return address at CFA - 8 and
// the caller's rbx at CFA - 16: stepping them needs this frame's rbx.
class RbxStepper : public FrameStepper {
 public:
  explicit RbxStepper(const std::vector<uint64_t>& pcs) : pcs_(pcs) {}
  StepperKind kind() const override { return StepperKind::kFramePointer; }
  StepAnswer step(const StepInput& in, Registers& caller) override {
    if (std::find(pcs_.begin(), pcs_.end(), in.regs.pc()) == pcs_.end()) return StepAnswer::not_mine();
    if (!in.regs.has(kRbx)) return StepAnswer::failed(WalkEnd::kNoUnwindInfo);
    const uint64_t cfa = in.regs.get(kRbx) + 16;
    const auto ra = in.stack.read_u64(cfa - 8);
    const auto rbx = in.stack.read_u64(cfa - 16);
    if (!ra || !rbx) return StepAnswer::failed(WalkEnd::kStackExhausted);
    caller = in.regs;
    caller.keep_only(1u << kRbp | 1u << kR12 | 1u << kR13 | 1u << kR14 | 1u << kR15);
    caller.set(kRbx, *rbx);
    caller.set(kRip, *ra);
    caller.set(kRsp, cfa);
    return StepAnswer::caller();
  }

 private:
  const std::vector<uint64_t>& pcs_;
};

// Ends the walk at one pc.
class BottomAt : public FrameStepper {
 public:
  explicit BottomAt(uint64_t pc) : pc_(pc) {}
  StepperKind kind() const override { return StepperKind::kBottom; }
  StepAnswer step(const StepInput& in, Registers&) override {
    return in.regs.pc() == pc_ ? StepAnswer::bottom_by_pc() : StepAnswer::not_mine_by_pc();
  }

 private:
  uint64_t pc_;
};

struct Program {
  std::map<uint64_t, CfiRule> rules;
  std::vector<uint64_t> rbx_pcs;
  uint64_t bottom_pc = 0;
  std::vector<uint8_t> stack = std::vector<uint8_t>(kStackSize);
  Registers sampled;
  std::vector<Frame> truth;  // innermost first

  void put(uint64_t addr, uint64_t v) {
    REQUIRE(addr >= kStackBase);
    REQUIRE(addr + 8 <= kStackBase + kStackSize);
    std::memcpy(stack.data() + (addr - kStackBase), &v, 8);
  }
};

// A random program: pcs with random frame layouts, one random chain of
// calls through them, the stack and registers at its innermost frame.
Program simulate(std::mt19937_64& rng) {
  Program p;
  auto pick = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
  const int npcs = 24;
  std::vector<uint64_t> pcs;
  for (int i = 0; i < npcs; ++i) pcs.push_back(kCodeStart + 0x10 + 0x20 * static_cast<uint64_t>(i));
  p.bottom_pc = pcs[0];
  struct Layout {
    bool from_bp = false;   // CFA = rbp + 16, rbp saved at CFA - 16 and set to it
    bool via_rbx = false;   // the RbxStepper's kind of frame
    int64_t size = 0;       // CFA - sp
    std::vector<std::pair<uint8_t, int16_t>> saved;  // register, offset from the CFA
  };
  std::map<uint64_t, Layout> layouts;
  for (int i = 1; i < npcs; ++i) {
    Layout l;
    l.via_rbx = pick(6) == 0;
    l.from_bp = !l.via_rbx && pick(3) == 0;
    std::vector<uint8_t> regs;
    if (l.from_bp) regs.push_back(kRbp);
    if (l.via_rbx) regs.push_back(kRbx);  // the RbxStepper recovers rbx alone
    else
      for (uint8_t r : kCalleeSaved)
        if (std::find(regs.begin(), regs.end(), r) == regs.end() && pick(2)) regs.push_back(r);
    int16_t off = -16;
    for (uint8_t r : regs) {
      l.saved.push_back({r, off});
      off = static_cast<int16_t>(off - 8);
    }
    l.size = -off - 8 + 8 * static_cast<int64_t>(pick(40));  // locals
    if (l.size < 8) l.size = 8;
    layouts[pcs[i]] = l;
    if (l.via_rbx) {
      p.rbx_pcs.push_back(pcs[i]);
      continue;
    }
    CfiRule rule;
    rule.cfa = l.from_bp ? CfaRule::kRbpOffset : CfaRule::kRspOffset;
    rule.cfa_reg = l.from_bp ? kRbp : kRsp;
    rule.cfa_offset = static_cast<int32_t>(l.from_bp ? 16 : l.size);
    rule.saved[kSlotRa] = SavedRule::kAtCfa;
    rule.saved_offset[kSlotRa] = -8;
    for (auto [reg, o] : l.saved) {
      const size_t k = static_cast<size_t>(std::find(kCalleeSaved.begin(), kCalleeSaved.end(), reg) - kCalleeSaved.begin());
      rule.saved[kCalleeSavedSlot[k]] = SavedRule::kAtCfa;
      rule.saved_offset[kCalleeSavedSlot[k]] = o;
    }
    rule.finalize();
    p.rules[pcs[i]] = rule;
  }

  // Outermost first: the bottom frame, then calls.
  std::map<uint8_t, uint64_t> regs;
  for (uint8_t r : kCalleeSaved) regs[r] = rng();
  uint64_t sp = kStackBase + kStackSize - 64;
  std::vector<Frame> outer_first = {{p.bottom_pc, sp, StepperKind::kSample, 0}};
  const int depth = 1 + static_cast<int>(pick(60));
  for (int d = 0; d < depth; ++d) {
    const uint64_t pc = pcs[1 + pick(npcs - 1)];
    const Layout& l = layouts[pc];
    const uint64_t cfa = sp;
    if (cfa - static_cast<uint64_t>(l.size) < kStackBase + 64) break;
    p.put(cfa - 8, outer_first.back().pc);
    for (auto [reg, o] : l.saved) p.put(cfa + static_cast<uint64_t>(o), regs[reg]);
    for (auto [reg, o] : l.saved) regs[reg] = rng();  // the callee uses what it saved
    if (l.from_bp) regs[kRbp] = cfa - 16;
    if (l.via_rbx) regs[kRbx] = cfa - 16;
    sp = cfa - static_cast<uint64_t>(l.size);
    outer_first.back().stepper = l.via_rbx ? StepperKind::kFramePointer : StepperKind::kCfi;  // steps into it
    outer_first.push_back({pc, sp, StepperKind::kSample, 0});
  }
  // Innermost first, as a walk gives them: frame i + 1 is made by the
  // stepper of frame i.
  for (size_t i = outer_first.size(); i-- > 0;) {
    Frame f = outer_first[i];
    if (i + 1 == outer_first.size()) f.stepper = StepperKind::kSample;
    f.flags = i + 1 == outer_first.size() ? kFrameExactPc : 0;
    p.truth.push_back(f);
  }
  for (uint8_t r = 0; r < kRip; ++r) p.sampled.set(r, rng());
  for (auto [reg, v] : regs) p.sampled.set(reg, v);
  p.sampled.set(kRsp, outer_first.back().sp);
  p.sampled.set(kRip, outer_first.back().pc);
  return p;
}

StepperList list_for(const Program& p, int& table_asked) {
  StepperList list;
  list.add(std::make_unique<BottomAt>(p.bottom_pc));
  list.add(std::make_unique<TableStepper>(p.rules, table_asked));
  list.add(std::make_unique<RbxStepper>(p.rbx_pcs));
  return list;
}

void check_same(const WalkResult& got, const WalkResult& want) {
  CHECK(walk_end_name(got.end) == std::string(walk_end_name(want.end)));
  REQUIRE(got.frames.size() == want.frames.size());
  for (size_t i = 0; i < got.frames.size(); ++i) {
    INFO("frame " << i);
    CHECK(got.frames[i].pc == want.frames[i].pc);
    CHECK(got.frames[i].sp == want.frames[i].sp);
    CHECK(static_cast<int>(got.frames[i].stepper) == static_cast<int>(want.frames[i].stepper));
    CHECK(got.frames[i].flags == want.frames[i].flags);
  }
}

}  // namespace

TEST_CASE("walker: cached rules give the simulated stacks, and the same walks as asking", "[walker]") {
  std::shared_ptr<const ElfBinary> binary = ElfBinary::open("/proc/self/exe");
  REQUIRE(binary);
  std::mt19937_64 rng(42);
  uint64_t frames = 0, rbx_after_cached = 0;
  int fast_asked = 0, slow_asked = 0;
  for (int program = 0; program < 300; ++program) {
    INFO("program " << program);
    const Program p = simulate(rng);
    ProcessMaps maps;
    Mapping m;
    m.start = kCodeStart;
    m.end = kCodeStart + 0x1000;
    m.executable = true;
    m.binary = binary;
    maps.add(m);
    Walker fast(list_for(p, fast_asked));
    Walker slow(list_for(p, slow_asked), WalkerOptions{256, false});

    const uint64_t sp = p.sampled.sp();
    const size_t used = static_cast<size_t>(kStackBase + kStackSize - sp);
    const SampleStackMemory whole(sp, Bytes(p.stack.data() + (sp - kStackBase), used));
    WalkResult truth;
    truth.frames = p.truth;
    truth.end = WalkEnd::kBottom;
    check_same(slow.walk(p.sampled, whole, maps), truth);
    for (int repeat = 0; repeat < 2; ++repeat) check_same(fast.walk(p.sampled, whole, maps), truth);
    frames += truth.frames.size();
    for (size_t i = 1; i + 1 < p.truth.size(); ++i)
      rbx_after_cached += p.truth[i].stepper == StepperKind::kFramePointer && p.truth[i - 1].stepper == StepperKind::kCfi;

    // Cut stacks and scribbled words: whatever the walks give, the same.
    std::vector<uint8_t> scribbled(p.stack.begin() + static_cast<ptrdiff_t>(sp - kStackBase), p.stack.end());
    for (int i = 0; i < 3; ++i) {
      const size_t at = std::uniform_int_distribution<size_t>(0, used / 8 - 1)(rng) * 8;
      const uint64_t v = rng() % 2 ? rng() : sp + rng() % used;
      std::memcpy(scribbled.data() + at, &v, 8);
    }
    for (size_t cut : {used / 2, used / 3, size_t{200}, size_t{24}, size_t{4}}) {
      const SampleStackMemory part(sp, Bytes(p.stack.data() + (sp - kStackBase), std::min(cut, used)));
      const WalkResult want = slow.walk(p.sampled, part, maps);
      check_same(fast.walk(p.sampled, part, maps), want);
      const SampleStackMemory bad(sp, Bytes(scribbled.data(), std::min(cut * 2, used)));
      check_same(fast.walk(p.sampled, bad, maps), slow.walk(p.sampled, bad, maps));
    }
  }
  CHECK(frames > 3000);
  CHECK(rbx_after_cached > 100);       // rbx rebuilt through frames stepped by cached rules
  CHECK(fast_asked * 2 < slow_asked);  // cached rules stepped frames without asking
}
