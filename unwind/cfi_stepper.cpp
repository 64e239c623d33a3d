#include "unwind/cfi_stepper.h"

#include "unwind/cfi_rule_apply.h"
#include "unwind/return_path.h"
#include "unwind/walk_guards.h"

#include <optional>

namespace swprof {
namespace {

std::optional<uint64_t> add_offset(uint64_t base, int64_t off) { return offset_address(base, off); }

// A value or why there is none.
struct Computed {
  uint64_t value = 0;
  bool ok = false;
  WalkEnd error = WalkEnd::kNoUnwindInfo;
  static Computed of(uint64_t v) { return {v, true, WalkEnd::kBottom}; }
  static Computed fail(WalkEnd why) { return {0, false, why}; }
};

// *(base + off) from the copied stack.
inline Computed load(uint64_t base, int64_t off, const Memory& stack) {
  auto addr = add_offset(base, off);
  if (!addr) return Computed::fail(WalkEnd::kStackExhausted);  // no such address: not in the copied stack
  auto v = stack.read_u64(*addr);
  if (!v) return Computed::fail(WalkEnd::kStackExhausted);
  return Computed::of(*v);
}

Computed compute_cfa(const CfiRule& rule, const Registers& regs, const Memory& stack) {
  if (rule.cfa_reg >= kRegCount || !regs.has(rule.cfa_reg)) return Computed::fail(WalkEnd::kNoUnwindInfo);
  const uint64_t base = regs.get(rule.cfa_reg);
  switch (rule.cfa) {
    case CfaRule::kRspOffset:
    case CfaRule::kRbpOffset:
    case CfaRule::kRegOffset: {
      auto cfa = add_offset(base, rule.cfa_offset);
      return cfa ? Computed::of(*cfa) : Computed::fail(WalkEnd::kNoUnwindInfo);
    }
    case CfaRule::kDerefReg:
      return load(base, rule.cfa_offset, stack);
    case CfaRule::kPlt: {
      if (!regs.has(kRip)) return Computed::fail(WalkEnd::kNoUnwindInfo);
      // rsp + off + ((rip & 15) >= K ? 8 : 0): past the push in the PLT entry,
      // one more word is on the stack.
      const int64_t extra = (regs.pc() & 15) >= rule.plt_threshold ? 8 : 0;
      auto cfa = add_offset(base, int64_t{rule.cfa_offset} + extra);
      return cfa ? Computed::of(*cfa) : Computed::fail(WalkEnd::kNoUnwindInfo);
    }
  }
  return Computed::fail(WalkEnd::kNoUnwindInfo);
}

// Recovers one caller register whose rule is not "same value" into
// `caller`; an error ends the step.
std::optional<WalkEnd> recover(SavedRule how, int reg, int64_t off, uint64_t cfa, const Registers& regs,
                               const Memory& stack, Registers& caller) {
  switch (how) {
    case SavedRule::kSameValue:
      return std::nullopt;  // already carried over
    case SavedRule::kUndefined:
      caller.clear(reg);
      return std::nullopt;
    case SavedRule::kAtCfa: {
      Computed v = load(cfa, off, stack);
      if (!v.ok) {
        // In an epilogue the CFI may still place an already popped register
        // below sp, outside the copy: without it the caller's value is
        // unknown, which is fine for any register but the return address.
        if (reg == kRip) return v.error;
        caller.clear(reg);
        return std::nullopt;
      }
      caller.set(reg, v.value);
      return std::nullopt;
    }
    case SavedRule::kValCfa: {
      auto v = add_offset(cfa, off);
      if (!v) return WalkEnd::kNoUnwindInfo;
      caller.set(reg, *v);
      return std::nullopt;
    }
    case SavedRule::kAtRbp: {
      Computed v = regs.has(kRbp) ? load(regs.bp(), off, stack) : Computed::fail(WalkEnd::kNoUnwindInfo);
      if (!v.ok) {
        if (reg == kRip) return v.error;
        caller.clear(reg);  // as above: unknown, not fatal
        return std::nullopt;
      }
      caller.set(reg, v.value);
      return std::nullopt;
    }
  }
  return WalkEnd::kNoUnwindInfo;
}

// Registers whose caller value is dead across a call (psABI §3.2.1): never
// carried into the caller frame.
// Written out so the clears fold into one mask operation.
void drop_caller_saved(Registers& r) {
  r.clear(kRax), r.clear(kRdx), r.clear(kRcx), r.clear(kRsi), r.clear(kRdi), r.clear(kR8);
  r.clear(kR9), r.clear(kR10), r.clear(kR11), r.clear(kRip), r.clear(kRsp);
}

}  // namespace

CfiStepper::CfiStepper(std::shared_ptr<CfiTableCache> tables) : tables_(std::move(tables)) {}

namespace {

// The caller's registers once the CFA is known, written into `caller`.
Applied apply_with_cfa(const CfiRule& rule, const Registers& regs, const Memory& stack, uint64_t cfa,
                          Registers& caller) {
  // Start from this frame's registers: every "same value" register is then
  // already carried over.
  caller = regs;
  drop_caller_saved(caller);
  if (rule.ra() == SavedRule::kSameValue && regs.has(kRip)) caller.set(kRip, regs.pc());
  std::optional<WalkEnd> error;
  // Only the slots whose rule is not "same value" (usually the return
  // address and rbp).
  for (unsigned mask = rule.recover_mask ? rule.recover_mask : rule.slots_to_recover(); mask && !error;
       mask &= mask - 1) {
    const int slot = __builtin_ctz(mask);
    error = recover(rule.saved[slot], kSavedSlotReg[slot], rule.saved_offset[slot], cfa, regs, stack, caller);
  }
  if (!error && !caller.has(kRip)) error = WalkEnd::kNoUnwindInfo;
  if (error) return Applied::failed(*error);
  caller.set(kRsp, cfa);
  // A signal trampoline's caller is the interrupted context: its pc is exact.
  return Applied::caller((rule.flags & kCfiSignalFrame) ? kFrameSignal | kFrameExactPc : 0);
}

}  // namespace

Applied CfiStepper::apply_into(const CfiRule& rule, const Registers& regs, const Memory& stack, Registers& caller) {
  if (rule.flags & kCfiSimple) [[likely]]
    return apply_simple_rule(rule, regs, stack, caller);
  if (rule.ra() == SavedRule::kUndefined) return Applied::bottom();
  const Computed cfa = compute_cfa(rule, regs, stack);
  if (!cfa.ok) return Applied::failed(cfa.error);
  return apply_with_cfa(rule, regs, stack, cfa.value, caller);
}

StepAnswer CfiStepper::step(const StepInput& in, Registers& caller) {
  if (!in.mapping || !in.mapping->binary) return StepAnswer::not_mine_by_pc();
  const CfiRule* rule = rule_for(*in.mapping, in.lookup_pc());
  if (!rule) return StepAnswer::not_mine_by_pc();
  if (in.address.is_exact()) rule = at_exact_pc(*rule, *in.mapping->binary, in.mapping->to_vaddr(in.lookup_pc()));
  if (rule->ra() == SavedRule::kUndefined) return StepAnswer::bottom_by_pc();
  return StepAnswer::by_rule(apply_into(*rule, in.regs, in.stack, caller), UnwindRule::of_cfi_row(*rule));
}

const CfiRule* CfiStepper::rule_for(const Mapping& mapping, uint64_t pc) {
  if (!mapping.binary) return nullptr;
  return table_for(mapping.binary).lookup(mapping.to_vaddr(pc));
}

namespace {

// The callee-saved registers (a bit per DWARF number) that `row` places
// below rsp: known only for an rsp-based CFA, the usual rule in epilogues.
uint32_t registers_below_sp(const CfiRule& row) {
  if (row.cfa != CfaRule::kRspOffset) return 0;
  uint32_t below = 0;
  for (int slot = kSlotRa + 1; slot < kSavedSlotCount; ++slot)
    if (row.saved[slot] == SavedRule::kAtCfa && int64_t{row.cfa_offset} + row.saved_offset[slot] < 0)
      below |= 1u << kSavedSlotReg[slot];
  return below;
}

}  // namespace

const CfiRule* CfiStepper::at_exact_pc(const CfiRule& row, const ElfBinary& binary, uint64_t vaddr) {
  const uint32_t below = registers_below_sp(row);
  if (!below) [[likely]]
    return &row;
  if (!decoder_) decoder_.emplace();
  const uint32_t kept = registers_unchanged_to_return(*decoder_, binary, vaddr, below);
  if (!kept) return &row;
  auto [it, inserted] = epilogue_rows_.try_emplace({&row, kept}, row);
  if (inserted) {
    CfiRule& changed = it->second;
    for (int slot = kSlotRa + 1; slot < kSavedSlotCount; ++slot)
      if ((kept >> kSavedSlotReg[slot]) & 1u) {
        changed.saved[slot] = SavedRule::kSameValue;
        changed.saved_offset[slot] = 0;
      }
    changed.finalize();
  }
  return &it->second;
}

const LazyCfiTable& CfiStepper::table_for(const std::shared_ptr<const ElfBinary>& binary) {
  if (binary.get() == last_binary_) return *last_table_;
  auto it = held_.find(binary.get());
  if (it == held_.end()) it = held_.emplace(binary.get(), tables_->get(binary)).first;
  last_binary_ = binary.get();
  last_table_ = it->second.get();
  return *last_table_;
}

}  // namespace swprof
