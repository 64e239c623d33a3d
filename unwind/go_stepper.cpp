#include "unwind/go_stepper.h"

#include "unwind/cfi_rule_apply.h"

namespace swprof {
namespace {

constexpr int kPrologueInsns = 8;
constexpr size_t kPrologueBytes = 64;
constexpr int64_t kSavedBpOffset = -16;  // from the CFA

}  // namespace

StepAnswer GoStepper::step(const StepInput& in, Registers& caller) {
  if (!in.mapping || !in.mapping->binary) return StepAnswer::not_mine_by_pc();
  const GoPclntab* table = in.mapping->binary->go_pclntab();
  if (!table) return StepAnswer::not_mine_by_pc();
  const uint64_t vaddr = in.mapping->to_vaddr(in.lookup_pc());
  const std::optional<GoPclntab::Func> f = table->func_at(vaddr);
  if (!f) return StepAnswer::not_mine_by_pc();
  const std::optional<StepAnswer> answer = answer_at(*in.mapping->binary, *table, *f, in.address, vaddr);
  if (!answer) return StepAnswer::failed(WalkEnd::kNoUnwindInfo);
  if (answer->kind != StepKind::kCaller) return *answer;
  return StepAnswer::by_rule(apply_rule(answer->rule, in.regs, in.stack, caller), answer->rule);
}

std::optional<StepAnswer> GoStepper::answer_at(const ElfBinary& binary, const GoPclntab& table,
                                               const GoPclntab::Func& f, FrameAddress at, uint64_t vaddr) {
  if (table.is_bottom(f)) return StepAnswer::bottom_by_pc();
  if (table.switches_stack(f) && !(at.is_exact() && before_stack_write(binary, f, vaddr)))
    return StepAnswer::end_by_pc(WalkEnd::kStackSwitch);
  const std::optional<int32_t> delta = table.sp_delta(f, vaddr);
  if (!delta || *delta < 0 || *delta % 8 != 0) return std::nullopt;
  const std::optional<uint64_t> saved = *delta >= 8 ? bp_saved_from(binary, table, f) : std::nullopt;
  const UnwindRule rule = UnwindRule::of_cfi_row(row(*delta + 8, saved && vaddr >= *saved));
  return StepAnswer::by_rule(Applied::caller(), rule);  // applied by step()
}

// Go's prologues (cmd/internal/obj/x86/obj6.go): 1.21+ `push rbp; mov
// rbp, rsp; sub rsp, n`; before, `sub rsp, n; mov [rsp+n-8], rbp; lea rbp,
// [rsp+n-8]`. Either way the slot is CFA-16, checked with pcsp.
std::optional<uint64_t> GoStepper::bp_saved_from(const ElfBinary& binary, const GoPclntab& table,
                                                 const GoPclntab::Func& f) {
  const auto key = std::make_pair(&binary, f.entry);
  if (auto it = saved_from_.find(key); it != saved_from_.end()) return it->second;
  if (!decoder_) decoder_.emplace();
  std::optional<uint64_t> found;
  const Bytes code = binary.code_at(f.entry, std::min<uint64_t>(kPrologueBytes, f.end - f.entry), true);
  uint64_t at = f.entry;
  for (int i = 0; i < kPrologueInsns && !found; ++i) {
    const X86Insn insn = decoder_->decode(code, f.entry, at);
    if (insn.op == X86Op::kInvalid || insn.op == X86Op::kCall || !insn.falls_through()) break;
    const int64_t d = table.sp_delta(f, insn.addr).value_or(-1);
    if (insn.op == X86Op::kPush && insn.reg == kRbp && d >= 0 && -(d + 8) - 8 == kSavedBpOffset) found = insn.end();
    if (insn.op == X86Op::kStoreRbp && d >= 0 && insn.imm - d - 8 == kSavedBpOffset) found = insn.end();
    at = insn.end();
  }
  saved_from_.emplace(key, found);
  return found;
}

bool GoStepper::before_stack_write(const ElfBinary& binary, const GoPclntab::Func& f, uint64_t vaddr) {
  if (!decoder_) decoder_.emplace();
  const Bytes code = binary.code_at(f.entry, std::min<uint64_t>(kPrologueBytes, f.end - f.entry), true);
  uint64_t at = f.entry;
  for (int i = 0; i < kPrologueInsns && at < vaddr; ++i) {
    const X86Insn insn = decoder_->decode(code, f.entry, at);
    if (!insn.falls_through() || insn.clobbers_rsp || insn.op == X86Op::kSetRspFromRbp || insn.op == X86Op::kLeave ||
        insn.op == X86Op::kAlignRsp)
      return false;
    at = insn.end();
  }
  return at == vaddr;
}

const CfiRule& GoStepper::row(int32_t cfa_offset, bool restores_bp) {
  std::unique_ptr<CfiRule>& slot = rows_[{cfa_offset, restores_bp}];
  if (!slot) {
    slot = std::make_unique<CfiRule>();
    slot->cfa = CfaRule::kRspOffset;
    slot->cfa_reg = kRsp;
    slot->cfa_offset = cfa_offset;
    slot->saved[kSlotRa] = SavedRule::kAtCfa;
    slot->saved_offset[kSlotRa] = -8;
    if (restores_bp) {
      slot->saved[kSlotRbp] = SavedRule::kAtCfa;
      slot->saved_offset[kSlotRbp] = static_cast<int16_t>(kSavedBpOffset);
    }
    slot->finalize();
  }
  return *slot;
}

}  // namespace swprof
