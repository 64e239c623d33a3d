// apply_simple_rule (the lean path for kCfiSimple rules, shared by the CFI
// stepper and the walker's rebuild of registers behind cached rules)
// against the general rule interpreter (the same rule with kCfiSimple
// cleared), on random rules, registers and stacks: the same answer and the
// same caller registers.

#include "unwind/cfi_rule_apply.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <sstream>
#include <vector>

#include "unwind/cfi_stepper.h"

using namespace swprof;

namespace {

constexpr uint64_t kStackBase = 0x7ffd0000;

struct Seen {
  StepKind kind = StepKind::kNotMine;
  WalkEnd error = WalkEnd::kBottom;
  uint32_t valid = 0;
  std::array<uint64_t, kRegCount> values{};  // known registers only

  bool operator==(const Seen&) const = default;
  std::string text() const {
    std::ostringstream out;
    out << "status " << int(kind) << " error " << walk_end_name(error) << " valid " << std::hex << valid;
    for (int r = 0; r < kRegCount; ++r)
      if ((valid >> r) & 1) out << " r" << std::dec << r << "=" << std::hex << values[r];
    return out.str();
  }
};

Seen applied(const Applied& r, const Registers& caller) {
  Seen a;
  a.kind = r.kind;
  if (r.kind == StepKind::kFailed) a.error = r.failure;
  if (r.kind != StepKind::kCaller) return a;
  a.valid = caller.valid_mask();
  for (int reg = 0; reg < kRegCount; ++reg)
    if (caller.has(reg)) a.values[reg] = caller.get(reg);
  return a;
}

// A random rule of the simple shape: CFA = rsp/rbp + n, the return address
// and some callee-saved registers at CFA + k.
CfiRule random_simple_rule(std::mt19937_64& rng) {
  CfiRule rule;
  const bool rbp = rng() % 2;
  rule.cfa = rbp ? CfaRule::kRbpOffset : CfaRule::kRspOffset;
  rule.cfa_reg = rbp ? kRbp : kRsp;
  rule.cfa_offset = static_cast<int32_t>(rng() % 4 == 0 ? rng() % 512 - 256 : 8 * (rng() % 40));
  for (int slot = 0; slot < kSavedSlotCount; ++slot) {
    if (slot != kSlotRa && rng() % 2) continue;
    rule.saved[slot] = SavedRule::kAtCfa;
    // Mostly the usual layout below the return address, sometimes anywhere.
    rule.saved_offset[slot] = static_cast<int16_t>(rng() % 5 == 0 ? int(rng() % 128) - 64 : -8 * int(1 + rng() % 8));
  }
  rule.finalize();
  return rule;
}

}  // namespace

TEST_CASE("simple CFI rules applied lean and by the general interpreter agree", "[cfi]") {
  std::mt19937_64 rng(1234);
  std::vector<uint8_t> bytes(512);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  size_t compared = 0;
  size_t successes = 0;
  size_t epilogues = 0;  // some register unreadable, the step still fine
  for (int round = 0; round < 20000; ++round) {
    const CfiRule rule = random_simple_rule(rng);
    REQUIRE(rule.flags & kCfiSimple);
    CfiRule general = rule;
    general.flags &= static_cast<uint8_t>(~kCfiSimple);

    const size_t size = rng() % 3 == 0 ? rng() % bytes.size() : bytes.size();
    const BufferMemory stack(kStackBase, Bytes(bytes.data(), size));
    Registers regs;
    regs.set(kRip, 0x401000 + rng() % 0x1000);
    regs.set(kRsp, kStackBase + rng() % 320);
    if (rng() % 4) regs.set(kRbp, kStackBase + rng() % 320);
    for (int r : {kRbx, kR12, kR13, kR14, kR15, kRax, kRdi})
      if (rng() % 2) regs.set(r, rng());

    Registers lean_caller, checked_caller, general_caller;
    const auto words = WordView::of(*stack.contiguous());
    const Seen want = applied(CfiStepper::apply_into(general, regs, stack, general_caller), general_caller);
    const Seen lean = words ? applied(apply_simple_rule(rule, regs, *words, lean_caller), lean_caller)
                               : applied(apply_simple_rule(rule, regs, stack, lean_caller), lean_caller);
    const Seen checked =
        applied(apply_simple_rule(rule, regs, CheckedReads{stack}, checked_caller), checked_caller);
    INFO(describe(rule) << " stack " << size << " bytes, rsp +" << regs.sp() - kStackBase << "\n  general: "
                        << want.text() << "\n  lean:    " << lean.text() << "\n  checked: " << checked.text());
    REQUIRE(lean == want);
    REQUIRE(checked == want);
    ++compared;
    if (want.kind == StepKind::kCaller) {
      ++successes;
      const uint32_t recovered = rule.recover_mask & ~1u;
      for (int slot = 1; slot < kSavedSlotCount; ++slot)
        if (((recovered >> slot) & 1) && !want.values[kSavedSlotReg[slot]] && !((want.valid >> kSavedSlotReg[slot]) & 1))
          ++epilogues;
    }
  }
  CHECK(successes > 2000);
  CHECK(epilogues > 50);
}

TEST_CASE("a simple rule whose CFA overflows, or lies at the ends of the address space, is no unwind info", "[cfi]") {
  std::vector<uint8_t> bytes(64);
  const BufferMemory stack(0, Bytes(bytes.data(), bytes.size()));
  const auto words = WordView::of(*stack.contiguous());
  REQUIRE(words);
  auto rule_with = [](int32_t cfa_offset) {
    CfiRule rule;
    rule.cfa = CfaRule::kRspOffset;
    rule.cfa_reg = kRsp;
    rule.cfa_offset = cfa_offset;
    rule.saved[kSlotRa] = SavedRule::kAtCfa;
    rule.saved_offset[kSlotRa] = -8;
    rule.finalize();
    return rule;
  };
  struct Case {
    uint64_t rsp;
    int32_t offset;
  };
  for (const Case& c : {Case{16, -32}, Case{~uint64_t{0} - 8, 16}, Case{8, 16}, Case{~uint64_t{0} - 0x8000, 16},
                        Case{0x10000, -0x10000}}) {
    Registers regs;
    regs.set(kRip, 0x401000);
    regs.set(kRsp, c.rsp);
    Registers caller;
    const Applied r = apply_simple_rule(rule_with(c.offset), regs, *words, caller);
    INFO("rsp " << c.rsp << " offset " << c.offset);
    CHECK(r.kind == StepKind::kFailed);
    CHECK(r.failure == WalkEnd::kNoUnwindInfo);
  }
}
