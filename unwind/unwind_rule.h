#pragma once
// How to find the caller of every frame at one (binary, pc, exactness), as a
// value: a stepper whose step depends on nothing else answers with its rule,
// the walker caches it (RuleCache) and applies it to the next such frames
// without asking the steppers (the framehop model: finding a rule is apart
// from applying it).
//
// Each kind's comment is its formula. The fast kinds need only rip, rsp and
// rbp, which is all the walker tracks while it steps cached frames; the
// other callee-saved registers follow from `row` (apply_simple_rule) when a
// stepper must see them.

#include <cstdint>
#include <optional>

#include "unwind/frame.h"
#include "unwind/memory.h"

namespace swprof {

struct CfiRule;
class Registers;

enum class RuleKind : uint8_t {
  // The stack ends here.
  kBottom = 0,
  // Not a rule: the steppers before `stepper` pass such frames on (they
  // decide by the address alone); ask from it.
  kAskFrom = 1,
  // The walk ends here, not at its bottom: `cfa_offset` is the WalkEnd
  // (a Go stack switch).
  kEnd = 3,
  // Any other compiled CFI row: the caller's registers per `row`'s CFA and
  // saved-register rules (CfiStepper::apply_into); needs every register.
  kCfiRow = 2,
  // cfa = rsp + cfa_offset; (rip, rsp, rbp) = (*(cfa - 8), cfa, rbp).
  kCfaSp = 4,
  // cfa = rsp + cfa_offset; (rip, rsp, rbp) = (*(cfa - 8), cfa, *(cfa + bp_offset)).
  kCfaSpRestoreBp = 5,
  // cfa = rbp + cfa_offset; (rip, rsp, rbp) = (*(cfa - 8), cfa, rbp).
  kCfaBp = 6,
  // cfa = rbp + cfa_offset; (rip, rsp, rbp) = (*(cfa - 8), cfa, *(cfa + bp_offset)).
  kCfaBpRestoreBp = 7,
};

// Bits of the fast kinds' values.
inline constexpr uint8_t kRuleFast = 4, kRuleCfaFromBp = 2, kRuleRestoresBp = 1;

struct UnwindRule {
  // kCfiRow, and the fast kinds: the compact CFI row (kCfiSimple for the
  // fast kinds: rbx, r12..r15 at cfa + k). Owned by the binary's CfiTable
  // (or, for a row changed at an epilogue's exact pc, by the CfiStepper),
  // either of which outlives the walker's cache of it.
  const CfiRule* row = nullptr;
  int32_t cfa_offset = 0;  // kAskFrom: the position of the first stepper to ask
  int16_t bp_offset = 0;
  RuleKind kind = RuleKind::kBottom;
  // The stepper that gave the rule: the frames it steps are marked with it.
  // Set by the stepper list.
  StepperKind by = StepperKind::kSample;

  static constexpr UnwindRule bottom() { return {}; }
  static constexpr UnwindRule end(WalkEnd why) {
    return {nullptr, static_cast<int32_t>(why), 0, RuleKind::kEnd, StepperKind::kSample};
  }
  static constexpr UnwindRule ask_from(uint8_t first) {
    return {nullptr, first, 0, RuleKind::kAskFrom, StepperKind::kSample};
  }
  // The rule of a compiled CFI row whose return address is defined.
  static UnwindRule of_cfi_row(const CfiRule& row);

  bool fast() const { return static_cast<uint8_t>(kind) & kRuleFast; }
  // Where to start asking the steppers when the rule does not decide a
  // frame: the steppers before a kAskFrom's first decide by the address
  // alone, so they would pass it on again; any other rule's stepper may be
  // preceded by such steppers, asked again (rare: a rule that fails).
  size_t first_to_ask() const { return kind == RuleKind::kAskFrom ? static_cast<size_t>(cfa_offset) : 0; }
  bool operator==(const UnwindRule&) const = default;
};
static_assert(sizeof(UnwindRule) == 16);

// What a step decided.
enum class StepKind : uint8_t {
  kCaller,   // the caller's registers were written
  kBottom,   // this is the outermost frame
  kNotMine,  // this stepper does not handle the frame: ask the next one
  kFailed,   // this stepper handles the frame but could not step it
  kEnd,      // the walk ends here, not at its bottom (`failure` says why); no other stepper is asked
};

// What applying a rule (or a stepper's own formula) gave.
struct Applied {
  StepKind kind = StepKind::kFailed;
  WalkEnd failure = WalkEnd::kNoUnwindInfo;  // kFailed only
  uint8_t caller_flags = 0;                  // FrameFlags of the caller (kCaller only)

  static constexpr Applied caller(uint8_t flags = 0) { return {StepKind::kCaller, WalkEnd::kNoUnwindInfo, flags}; }
  static constexpr Applied bottom() { return {StepKind::kBottom, WalkEnd::kNoUnwindInfo, 0}; }
  static constexpr Applied failed(WalkEnd why) { return {StepKind::kFailed, why, 0}; }
  static constexpr Applied end(WalkEnd why) { return {StepKind::kEnd, why, 0}; }
  static constexpr Applied not_mine() { return {StepKind::kNotMine, WalkEnd::kNoUnwindInfo, 0}; }
};

// base + offset as a CFA: nullopt when it wraps, or lies outside
// [2^15, 2^64 - 2^15) so that no slot address (|k| < 2^15) wraps.
[[gnu::always_inline]] inline bool checked_cfa(uint64_t base, int64_t offset, uint64_t& cfa) {
  cfa = base + static_cast<uint64_t>(offset);          // wraps exactly when it overflows:
  const bool overflow = (offset < 0) == (cfa >= base);  // up past 2^64, or down past 0
  return !overflow && cfa - (1u << 15) <= ~uint64_t{0} - (2u << 15);
}

// The registers a fast rule reads and writes.
struct FrameCore {
  uint64_t pc = 0;
  uint64_t sp = 0;
  uint64_t bp = 0;
  bool bp_known = false;
};

// A fast rule applied to `frame` (its formula above) on the copied stack:
// nullopt when it does not apply (rbp unknown for a CFA from rbp, a CFA out
// of range, the return address outside the copy); rbp becomes unknown when
// its slot is outside the copy. The same arithmetic as apply_simple_rule
// on the same row, for three registers.
[[gnu::always_inline]] inline std::optional<FrameCore> apply_fast_rule(const UnwindRule& rule, const FrameCore& frame,
                                                                       const WordView& words) {
  const uint8_t kind = static_cast<uint8_t>(rule.kind);
  const bool from_bp = kind & kRuleCfaFromBp;
  uint64_t cfa;
  if ((from_bp && !frame.bp_known) || !checked_cfa(from_bp ? frame.bp : frame.sp, rule.cfa_offset, cfa) ||
      !words.has_word(cfa - 8)) [[unlikely]]
    return std::nullopt;
  FrameCore caller{words.word(cfa, -8), cfa, frame.bp, frame.bp_known};
  if (kind & kRuleRestoresBp) {
    const uint64_t at = cfa + static_cast<uint64_t>(static_cast<int64_t>(rule.bp_offset));
    caller.bp_known = words.has_word(at);
    if (caller.bp_known) caller.bp = words.word(at, 0);
  }
  return caller;
}

// Any rule applied to every register of a frame: kBottom gives the bottom,
// kAskFrom not_mine (the steppers decide).
Applied apply_rule(const UnwindRule& rule, const Registers& regs, const Memory& stack, Registers& caller);

}  // namespace swprof
