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

#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>

#include "binary/cfi_table.h"
#include "binary/cfi_table_cache.h"
#include "binary/x86_decoder.h"
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
  // At an exact pc (the sampled frame, a signal's interrupted context), a
  // register the row places below rsp (popped in an epilogue) is carried
  // over as it is when the code from the pc to its return does not write it
  // (unwind/return_path.h): the answer still depends on the pc alone.
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
  // `row`, or the row with the registers it places below rsp that are not
  // written before the return at `vaddr` made "same value".
  const CfiRule* at_exact_pc(const CfiRule& row, const ElfBinary& binary, uint64_t vaddr);

  std::shared_ptr<CfiTableCache> tables_;
  const ElfBinary* last_binary_ = nullptr;
  const LazyCfiTable* last_table_ = nullptr;
  // Tables this stepper has used, held so the rows it gave stay valid.
  std::unordered_map<const ElfBinary*, std::shared_ptr<const LazyCfiTable>> held_;
  // Rows with popped registers made "same value", by (row, registers made so):
  // at most 64 per row of the held tables. A map, whose nodes do not move:
  // cached UnwindRules point at them.
  std::map<std::pair<const CfiRule*, uint32_t>, CfiRule> epilogue_rows_;
  std::optional<X86Decoder> decoder_;  // opened on the first epilogue
};

}  // namespace swprof
