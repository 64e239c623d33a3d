#include "unwind/unwind_rule.h"

#include "binary/cfi_table.h"
#include "unwind/cfi_rule_apply.h"
#include "unwind/cfi_stepper.h"

namespace swprof {

UnwindRule UnwindRule::of_cfi_row(const CfiRule& row) {
  UnwindRule rule;
  rule.row = &row;
  rule.kind = RuleKind::kCfiRow;
  // A call leaves the return address right below the CFA; rsp or rbp based.
  const bool fast = (row.flags & kCfiSimple) && row.saved_offset[kSlotRa] == -8 &&
                    (row.cfa_reg == kRsp || row.cfa_reg == kRbp);
  if (!fast) return rule;
  uint8_t kind = kRuleFast;
  if (row.cfa_reg == kRbp) kind |= kRuleCfaFromBp;
  if (row.recover_mask & (1u << kSlotRbp)) {
    kind |= kRuleRestoresBp;
    rule.bp_offset = row.saved_offset[kSlotRbp];
  }
  rule.kind = static_cast<RuleKind>(kind);
  rule.cfa_offset = row.cfa_offset;
  return rule;
}

Applied apply_rule(const UnwindRule& rule, const Registers& regs, const Memory& stack, Registers& caller) {
  switch (rule.kind) {
    case RuleKind::kBottom:
      return Applied::bottom();
    case RuleKind::kAskFrom:
      return Applied::not_mine();
    case RuleKind::kEnd:
      return Applied::end(static_cast<WalkEnd>(rule.cfa_offset));
    case RuleKind::kCfiRow:
      return CfiStepper::apply_into(*rule.row, regs, stack, caller);
    case RuleKind::kCfaSp:
    case RuleKind::kCfaSpRestoreBp:
    case RuleKind::kCfaBp:
    case RuleKind::kCfaBpRestoreBp:
      return apply_simple_rule(*rule.row, regs, stack, caller);
  }
  return Applied::not_mine();
}

}  // namespace swprof
