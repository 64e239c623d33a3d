#pragma once
// The DWARF CFI stepper: looks the current pc up in its binary's compiled
// CfiTable (through a small per-stepper cache) and applies the rule found.
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

#include <array>
#include <memory>
#include <unordered_map>

#include "binary/cfi_table.h"
#include "unwind/frame_stepper.h"

namespace swprof {

class CfiStepper : public FrameStepper {
 public:
  explicit CfiStepper(std::shared_ptr<CfiTableCache> tables);

  StepperKind kind() const override { return StepperKind::kCfi; }
  bool claims_by_pc_only() const override { return true; }
  // not_me when the pc's binary has no row for it; bottom when the return
  // address is undefined; errors: kNoUnwindInfo when a register the rule
  // needs is unknown, kStackExhausted when a read falls outside the copied stack.
  StepResult step_into(const StepInput& in, Registers& caller) override;
  // The rule for the frame when it has the simple shape (kCfiSimple): a
  // step is then exactly apply_simple_rule(). Rules stay valid as long as
  // this stepper.
  const CfiRule* simple_rule(const StepInput& in) override;

  // The formulas of `rule` (see CfaRule, SavedRule) applied to one frame.
  // The caller gets rip = RA, rsp = CFA, and rbp/rbx/r12..r15 per rule;
  // caller-saved registers stay unknown. No allocation, no exceptions.
  static StepOutcome apply(const CfiRule& rule, const Registers& regs, const Memory& stack);
  // The same, writing the caller's registers into `caller` (the hot path).
  static StepResult apply_into(const CfiRule& rule, const Registers& regs, const Memory& stack, Registers& caller);

  // The rule for runtime address `pc` inside `mapping`, or nullptr.
  const CfiRule* rule_for(const Mapping& mapping, uint64_t pc);

 private:
  struct CachedRule {
    const ElfBinary* binary = nullptr;  // nullptr: empty slot
    uint64_t vaddr = 0;
    const CfiRule* rule = nullptr;      // nullptr: no row covers vaddr (cached too)
  };
  static constexpr unsigned kRuleCacheBits = 10;

  const CfiRule* fill(CachedRule& slot, const Mapping& mapping, uint64_t vaddr);
  const CfiTable& table_for(const std::shared_ptr<const ElfBinary>& binary);

  std::shared_ptr<CfiTableCache> tables_;
  // Direct-mapped (binary, vaddr) -> rule, in front of the binary search.
  std::array<CachedRule, size_t{1} << kRuleCacheBits> rule_cache_{};
  const ElfBinary* last_binary_ = nullptr;
  const CfiTable* last_table_ = nullptr;
  // Tables this stepper has used, held so cached rule pointers stay valid.
  std::unordered_map<const ElfBinary*, std::shared_ptr<const CfiTable>> held_;
};

}  // namespace swprof
