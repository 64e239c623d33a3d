#pragma once
// Steppers in priority order (Dyninst's StepperGroup): the first to answer
// success or stack_bottom decides the frame; not_me falls through to the
// next; an error is remembered and the next stepper gets its chance.

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "unwind/cfi_rule_apply.h"
#include "unwind/frame_stepper.h"

namespace swprof {

struct GroupOutcome {
  StepOutcome outcome;
  StepperKind by = StepperKind::kSample;  // the stepper that answered
};

struct GroupResult {
  StepResult result;
  StepperKind by = StepperKind::kSample;  // the stepper that answered
};

// The copied stack as the group's shortcut reads it, or nullopt (then
// every frame asks the steppers).
inline std::optional<WordView> stack_words(const Memory& stack) {
  const std::optional<ContiguousView> view = stack.contiguous();
  return view ? WordView::of(*view) : std::nullopt;
}

class StepperGroup {
 public:
  // Lower priority runs first; equal priorities keep insertion order.
  void add(std::unique_ptr<FrameStepper> stepper, int priority);
  // Writes the caller's registers into `caller` (on success).
  GroupResult step_into(const StepInput& in, Registers& caller) {
    const std::optional<WordView> words = stack_words(in.stack);
    return step_frame(in.regs, in.stack, words ? &*words : nullptr, in.mapping, in.maps, in.exact_pc, in.depth, caller);
  }
  // The same with the frame in parts (the walker's hot path): the StepInput
  // is only built when the steppers are asked. `words` is
  // stack_words(stack), computed once per walk.
  GroupResult step_frame(const Registers& regs, const Memory& stack, const WordView* words, const Mapping* mapping,
                         const ProcessMaps& maps, bool exact_pc, int depth, Registers& caller);
  GroupOutcome step(const StepInput& in);
  bool empty() const { return steppers_.empty(); }

  // What the group remembers of frames at (mapping's binary, pc,
  // exactness) after one of them was stepped: they are the bottom, or
  // their callers follow from `rule` (kCfiSimple) as long as applying it
  // succeeds (else the steppers are asked). nullopt when nothing of the
  // kind is remembered. Valid as long as the group.
  struct Remembered {
    StepperKind by;
    const CfiRule* rule;  // nullptr: the frame is the bottom
  };
  std::optional<Remembered> remembered(const Mapping& mapping, uint64_t pc, bool exact_pc) const {
    const ElfBinary* binary = mapping.binary.get();
    if (!binary) return std::nullopt;
    const uint64_t vaddr = mapping.to_vaddr(pc);
    const Claim& claim = claims_[claim_index(binary, vaddr)];
    if (claim.binary != binary || claim.pc != vaddr || claim.exact != exact_pc) return std::nullopt;
    if (claim.bottom) return Remembered{claim.by, nullptr};
    if (claim.rule) return Remembered{claim.by, claim.rule};
    return std::nullopt;
  }
  // Off: every frame asks the steppers, even when a claim with a rule is
  // remembered (tests compare both ways).
  void set_rule_shortcut(bool on) {
    rule_shortcut_ = on;
    claims_ = {};
  }

 private:
  struct Entry {
    int priority;
    std::unique_ptr<FrameStepper> stepper;
  };
  // Which stepper first claimed (did not answer not_me for) a frame at this
  // (binary, address in the binary, exactness). When every stepper before it
  // decides by those alone (claims_by_pc_only), they need not be asked again
  // for such a frame; when the claimer also gave its simple CFI rule, the
  // group applies the rule itself. Direct-mapped; a miss asks all of them.
  struct Claim {
    const ElfBinary* binary = nullptr;
    uint64_t pc = 0;  // ELF vaddr
    bool exact = false;
    uint8_t first = 0;
    StepperKind by = StepperKind::kSample;  // kind of steppers_[first]
    bool bottom = false;                    // steppers_[first] answered stack_bottom (by pc alone)
    const CfiRule* rule = nullptr;          // steppers_[first]'s simple_rule(), or nullptr (always with the shortcut off)
  };
  static constexpr size_t kClaimSlots = 1024;
  static size_t claim_index(const ElfBinary* binary, uint64_t pc) {
    return ((pc ^ reinterpret_cast<uintptr_t>(binary)) * 0x9e3779b97f4a7c15ull) >> 54;
  }

  GroupResult ask(const StepInput& in, Registers& caller, size_t first, Claim* record);

  std::vector<Entry> steppers_;
  std::array<Claim, kClaimSlots> claims_{};
  bool rule_shortcut_ = true;
};

[[gnu::always_inline]] inline GroupResult StepperGroup::step_frame(const Registers& regs, const Memory& stack,
                                                                   const WordView* words, const Mapping* mapping,
                                                                   const ProcessMaps& maps, bool exact_pc, int depth,
                                                                   Registers& caller) {
  const ElfBinary* binary = mapping ? mapping->binary.get() : nullptr;
  if (!binary) [[unlikely]]
    return ask(StepInput{regs, stack, mapping, maps, exact_pc, depth}, caller, 0, nullptr);
  // Keyed by the address inside the binary: processes map it at different places.
  const uint64_t pc = mapping->to_vaddr(regs.pc());
  Claim& claim = claims_[claim_index(binary, pc)];
  if (claim.binary != binary || claim.pc != pc || claim.exact != exact_pc) [[unlikely]]
    return ask(StepInput{regs, stack, mapping, maps, exact_pc, depth}, caller, 0, &claim);
  if (claim.bottom) return {StepResult::bottom(), claim.by};
  if (claim.rule && words) [[likely]] {
    if (apply_simple_rule(*claim.rule, regs, *words, caller).status == StepStatus::kSuccess) [[likely]]
      return {StepResult::success(), claim.by};
  }
  return ask(StepInput{regs, stack, mapping, maps, exact_pc, depth}, caller, claim.first, nullptr);
}

}  // namespace swprof
