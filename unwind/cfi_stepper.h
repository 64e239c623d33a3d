#pragma once
// The DWARF CFI stepper: looks the current pc up in its binary's CFI table
// (binary/lazy_cfi_table.h) and applies the rule found. Its answer depends on the pc alone:
// the walker caches the row as an UnwindRule, so the table is searched once
// per (address space, frame address).
//
//   higher addresses
//   | caller's frame       |
//   +----------------------+ <- CFA: the caller's rsp before its call instruction
//   | return address       |    at CFA-8 (the usual RA rule)
//   | saved rbp, rbx, ...  |    at CFA+off, off < 0 (per rule)
//   | this frame's locals  |
//   +----------------------+ <- this frame's rsp
//   lower addresses
//
// One CfiStepper per unwinding thread; the tables are shared between them.

#include <memory>
#include <unordered_map>

#include "binary/cfi_table.h"
#include "binary/cfi_table_cache.h"
#include "unwind/frame_stepper.h"

namespace swprof {

class CfiStepper : public FrameStepper {
 public:
  explicit CfiStepper(std::shared_ptr<CfiTableCache> tables);

  StepperKind kind() const override { return StepperKind::kCfi; }
  // not_mine (by pc) when the pc's binary has no row for it; bottom when the
  // return address is undefined; failures: kNoUnwindInfo when a register the
  // rule needs is unknown, kStackExhausted when a read falls outside the
  // copied stack. Every answer but not_mine carries the row's UnwindRule.
  StepAnswer step(const StepInput& in, Registers& caller) override;

  // The formulas of `rule` (see CfaRule, SavedRule) applied to one frame,
  // writing the caller's registers into `caller`: rip = RA, rsp = CFA, and
  // rbp/rbx/r12..r15 per rule; caller-saved registers stay unknown. No
  // allocation, no exceptions.
  static Applied apply_into(const CfiRule& rule, const Registers& regs, const Memory& stack, Registers& caller);

  // The rule for runtime address `pc` inside `mapping`, or nullptr. Valid
  // as long as this stepper.
  const CfiRule* rule_for(const Mapping& mapping, uint64_t pc);

 private:
  const LazyCfiTable& table_for(const std::shared_ptr<const ElfBinary>& binary);

  std::shared_ptr<CfiTableCache> tables_;
  const ElfBinary* last_binary_ = nullptr;
  const LazyCfiTable* last_table_ = nullptr;
  // Tables this stepper has used, held so the rows it gave stay valid.
  std::unordered_map<const ElfBinary*, std::shared_ptr<const LazyCfiTable>> held_;
};

}  // namespace swprof
