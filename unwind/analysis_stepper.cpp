#include "unwind/analysis_stepper.h"

#include <string_view>

#include "unwind/walk_guards.h"

namespace swprof {

namespace {

std::optional<uint64_t> add_offset(uint64_t base, int32_t offset) { return offset_address(base, offset); }

// CFA = rbp + offset when the function keeps an rbp frame, else rsp +
// offset; on a realigned stack, the copy of the old rsp + offset, from a
// register this frame knows or from the stack.
std::optional<uint64_t> find_cfa(const StackHeight& h, const Registers& regs, const Memory& stack) {
  if (h.cfa_from_rbp && regs.has(kRbp)) return add_offset(regs.bp(), *h.cfa_from_rbp);
  if (h.cfa_from_rsp) return add_offset(regs.sp(), *h.cfa_from_rsp);
  if (h.cfa_reg >= 0 && regs.has(h.cfa_reg)) return add_offset(regs.get(h.cfa_reg), h.cfa_from_reg);
  if (h.cfa_slot) {
    const std::optional<uint64_t> at = add_offset(regs.sp(), *h.cfa_slot);
    const std::optional<uint64_t> old_rsp = at ? stack.read_u64(*at) : std::nullopt;
    return old_rsp ? add_offset(*old_rsp, h.cfa_from_slot) : std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

StepAnswer AnalysisStepper::step(const StepInput& in, Registers& caller) {
  if (!in.regs.has(kRsp)) return StepAnswer::not_mine();
  // The return address is above sp.
  if (no_stack_word_from(in.stack, in.regs.sp())) return StepAnswer::failed(WalkEnd::kStackExhausted);
  const uint64_t pc = in.lookup_pc();
  const Mapping* m = in.mapping && pc >= in.mapping->start && pc < in.mapping->end ? in.mapping : in.maps.find(pc);
  if (!m || !m->binary) return StepAnswer::not_mine();
  const uint64_t vaddr = m->to_vaddr(pc);
  // Named or discovered: stripped code is analyzed from its discovered start.
  const std::optional<FunctionBounds> fn = function_bounds(*m->binary, vaddr);
  // A `.cold` part runs inside its parent's frame: its own entry says nothing.
  if (!fn || fn->name.find(".cold") != std::string_view::npos) return StepAnswer::not_mine();
  // For a return address, vaddr is inside the call: the height before the
  // call is also the height after it returns.
  return StepAnswer::of(apply(analysis_.at(*m->binary, *fn, vaddr), in, caller));
}

Applied AnalysisStepper::apply(const StackHeight& height, const StepInput& in, Registers& caller) {
  const uint64_t sp = in.regs.sp();
  const std::optional<uint64_t> cfa = find_cfa(height, in.regs, in.stack);
  if (!cfa || *cfa < sp + 8 || *cfa < 8) return Applied::failed(WalkEnd::kNoUnwindInfo);
  const std::optional<uint64_t> ra = in.stack.read_u64(*cfa - 8);
  if (!ra) return Applied::failed(WalkEnd::kStackExhausted);
  if (!in_executable_mapping(in.maps, *ra)) return Applied::failed(WalkEnd::kNoUnwindInfo);

  caller = Registers();
  // Registers no path of this function has written still hold the caller's values.
  for (int reg = 0; reg < kRip; ++reg)
    if (reg != kRsp && reg != kRbp && in.regs.has(reg) && !((height.written >> reg) & 1u)) caller.set(reg, in.regs.get(reg));
  caller.set(kRip, *ra);
  caller.set(kRsp, *cfa);
  if (height.rbp == StackHeight::RbpRule::kSameValue && in.regs.has(kRbp)) {
    caller.set(kRbp, in.regs.bp());
  } else if (height.rbp == StackHeight::RbpRule::kSaved) {
    const std::optional<uint64_t> at = add_offset(*cfa, height.rbp_slot);
    const std::optional<uint64_t> saved = at ? in.stack.read_u64(*at) : std::nullopt;
    if (!saved) return Applied::failed(WalkEnd::kStackExhausted);
    caller.set(kRbp, *saved);
  }
  return Applied::caller();
}

}  // namespace swprof
