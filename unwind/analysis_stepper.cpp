#include "unwind/analysis_stepper.h"

#include <string_view>

namespace swprof {

namespace {

std::optional<uint64_t> add_offset(uint64_t base, int32_t offset) {
  uint64_t out;
  if (__builtin_add_overflow(base, static_cast<int64_t>(offset), &out)) return std::nullopt;
  return out;
}

// CFA = rbp + offset when the function keeps an rbp frame, else rsp + offset.
std::optional<uint64_t> find_cfa(const StackHeight& h, const Registers& regs) {
  if (h.cfa_from_rbp && regs.has(kRbp)) return add_offset(regs.bp(), *h.cfa_from_rbp);
  if (h.cfa_from_rsp) return add_offset(regs.sp(), *h.cfa_from_rsp);
  return std::nullopt;
}

bool in_executable_mapping(const ProcessMaps& maps, uint64_t addr) {
  const Mapping* m = maps.find(addr);
  return m && m->executable;
}

}  // namespace

StepOutcome AnalysisStepper::step(const StepInput& in) {
  if (!in.regs.has(kRsp)) return StepOutcome::not_me();
  const uint64_t pc = in.lookup_pc();
  const Mapping* m = in.mapping && pc >= in.mapping->start && pc < in.mapping->end ? in.mapping : in.maps.find(pc);
  if (!m || !m->binary) return StepOutcome::not_me();
  const uint64_t vaddr = m->to_vaddr(pc);
  const FunctionSymbol* fn = m->binary->function_at(vaddr);
  // A `.cold` part runs inside its parent's frame: its own entry says nothing.
  if (!fn || std::string_view(fn->name).find(".cold") != std::string_view::npos) return StepOutcome::not_me();
  // For a return address, vaddr is inside the call: the height before the
  // call is also the height after it returns.
  return apply(analysis_.at(*m->binary, *fn, vaddr), in);
}

StepOutcome AnalysisStepper::apply(const StackHeight& height, const StepInput& in) {
  const uint64_t sp = in.regs.sp();
  const std::optional<uint64_t> cfa = find_cfa(height, in.regs);
  if (!cfa || *cfa < sp + 8 || *cfa < 8) return StepOutcome::fail(WalkEnd::kNoUnwindInfo);
  const std::optional<uint64_t> ra = in.stack.read_u64(*cfa - 8);
  if (!ra) return StepOutcome::fail(WalkEnd::kStackExhausted);
  if (!in_executable_mapping(in.maps, *ra)) return StepOutcome::fail(WalkEnd::kNoUnwindInfo);

  Registers caller;
  caller.set(kRip, *ra);
  caller.set(kRsp, *cfa);
  if (height.rbp == StackHeight::RbpRule::kSameValue && in.regs.has(kRbp)) {
    caller.set(kRbp, in.regs.bp());
  } else if (height.rbp == StackHeight::RbpRule::kSaved) {
    const std::optional<uint64_t> at = add_offset(*cfa, height.rbp_slot);
    const std::optional<uint64_t> saved = at ? in.stack.read_u64(*at) : std::nullopt;
    if (!saved) return StepOutcome::fail(WalkEnd::kStackExhausted);
    caller.set(kRbp, *saved);
  }
  return StepOutcome::success(caller);
}

}  // namespace swprof
