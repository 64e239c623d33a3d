#include "unwind/frame_pointer_stepper.h"

#include <string_view>

#include "unwind/walk_guards.h"

namespace swprof {

namespace {

// GCC's hot/cold splitting puts unlikely blocks in `fn.cold`: they run in
// fn's frame, so their own "prologue" says nothing.
bool is_cold_part(const FunctionBounds& fn) { return fn.name.find(".cold") != std::string_view::npos; }

const Mapping* mapping_for(const StepInput& in, uint64_t addr) {
  if (in.mapping && addr >= in.mapping->start && addr < in.mapping->end) return in.mapping;
  return in.maps.find(addr);
}

}  // namespace

const char* frame_pointer_rule_name(FramePointerRule rule) {
  switch (rule) {
    case FramePointerRule::kSet: return "set";
    case FramePointerRule::kHalfset: return "halfset";
    case FramePointerRule::kUnset: return "unset";
  }
  return "?";
}

StepAnswer FramePointerStepper::step(const StepInput& in, Registers& caller) {
  if (!in.regs.has(kRbp) || !in.regs.has(kRsp)) return StepAnswer::not_mine();
  // Every rule reads at sp or at rbp >= sp.
  if (no_stack_word_from(in.stack, in.regs.sp())) return StepAnswer::failed(WalkEnd::kStackExhausted);
  const std::optional<FramePointerRule> rule = find_rule(in);
  if (!rule) return StepAnswer::not_mine();
  return StepAnswer::of(apply(*rule, in, caller));
}

std::optional<FramePointerRule> FramePointerStepper::find_rule(const StepInput& in) {
  const uint64_t pc = in.lookup_pc();
  const Mapping* m = mapping_for(in, pc);
  if (m && m->binary) {
    const uint64_t vaddr = m->to_vaddr(pc);
    // Named or discovered: a discovered frameless function is not mine
    // (analysis takes it) rather than a guess from whatever rbp holds.
    const std::optional<FunctionBounds> fn = function_bounds(*m->binary, vaddr);
    if (fn && !is_cold_part(*fn)) {
      if (const FunctionFrameLayout* layout = states_.layout(*m->binary, *fn)) return rule_from_state(in, *layout, vaddr);
    }
  }
  return plain_chain(in);
}

std::optional<FramePointerRule> FramePointerStepper::rule_from_state(const StepInput& in, const FunctionFrameLayout& layout,
                                                                     uint64_t vaddr) {
  switch (layout.kind) {
    case FrameKind::kNoFrame:
      return std::nullopt;
    case FrameKind::kStandard:
      if (!in.address.is_exact()) return FramePointerRule::kSet;  // a return address is mid-body
      switch (layout.setup_at(vaddr)) {
        case FrameSetup::kUnset: return FramePointerRule::kUnset;
        case FrameSetup::kHalfset: return FramePointerRule::kHalfset;
        case FrameSetup::kSet: return FramePointerRule::kSet;
      }
      return std::nullopt;
    case FrameKind::kSaveFpOnly:
      // rbp is a general register here: only the instants where the saved
      // rbp or the return address is at rsp are known.
      if (!in.address.is_exact()) return std::nullopt;
      if (layout.setup_at(vaddr) == FrameSetup::kUnset) return FramePointerRule::kUnset;
      if (vaddr == layout.after_push) return FramePointerRule::kHalfset;
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<FramePointerRule> FramePointerStepper::plain_chain(const StepInput& in) {
  const uint64_t rbp = in.regs.bp();
  if (rbp < in.regs.sp() || rbp % 8 != 0) return std::nullopt;
  uint8_t frame[16];
  if (!in.stack.read(rbp, frame, sizeof frame)) return std::nullopt;
  return FramePointerRule::kSet;
}

Applied FramePointerStepper::apply(FramePointerRule rule, const StepInput& in, Registers& caller) {
  const uint64_t sp = in.regs.sp();
  const uint64_t rbp = in.regs.bp();
  uint64_t ra_at = sp;
  uint64_t caller_sp = 0;
  uint64_t caller_rbp = rbp;
  if (rule == FramePointerRule::kUnset) {
    caller_sp = sp + 8;
  } else {
    const uint64_t base = rule == FramePointerRule::kSet ? rbp : sp;
    if (base < sp || base % 8 != 0) return Applied::failed(WalkEnd::kBadFramePointer);
    const std::optional<uint64_t> above = offset_address(base, 16);
    if (!above) return Applied::failed(WalkEnd::kBadFramePointer);
    caller_sp = *above;
    const std::optional<uint64_t> saved_rbp = in.stack.read_u64(base);
    if (!saved_rbp) return Applied::failed(WalkEnd::kStackExhausted);
    caller_rbp = *saved_rbp;
    ra_at = base + 8;
  }
  if (!sp_went_up(sp, caller_sp)) return Applied::failed(WalkEnd::kBadFramePointer);
  const std::optional<uint64_t> ra = in.stack.read_u64(ra_at);
  if (!ra) return Applied::failed(WalkEnd::kStackExhausted);
  if (!in_executable_mapping(in.maps, *ra)) return Applied::failed(WalkEnd::kBadFramePointer);

  caller = Registers();
  caller.set(kRip, *ra);
  caller.set(kRsp, caller_sp);
  caller.set(kRbp, caller_rbp);
  return Applied::caller();
}

}  // namespace swprof
