#include "unwind/stepper_group.h"

#include <algorithm>
#include <cstdint>

namespace swprof {

void StepperGroup::add(std::unique_ptr<FrameStepper> stepper, int priority) {
  auto at = std::upper_bound(steppers_.begin(), steppers_.end(), priority,
                             [](int p, const Entry& e) { return p < e.priority; });
  steppers_.insert(at, Entry{priority, std::move(stepper)});
}

GroupResult StepperGroup::step_into(const StepInput& in, Registers& caller) {
  GroupResult first_error{StepResult::fail(WalkEnd::kNoUnwindInfo), StepperKind::kSample};
  bool have_error = false;
  const ElfBinary* binary = in.mapping ? in.mapping->binary.get() : nullptr;
  // Keyed by the address inside the binary: processes map it at different places.
  const uint64_t pc = binary ? in.mapping->to_vaddr(in.regs.pc()) : 0;
  Claim& claim = claims_[((pc ^ reinterpret_cast<uintptr_t>(binary)) * 0x9e3779b97f4a7c15ull) >> 54];
  const bool known = binary && claim.binary == binary && claim.pc == pc && claim.exact == in.exact_pc;
  bool skippable = true;  // every stepper so far decides by pc alone
  for (size_t i = known ? claim.first : 0; i < steppers_.size(); ++i) {
    const Entry& e = steppers_[i];
    const StepResult r = e.stepper->step_into(in, caller);
    if (r.status == StepStatus::kNotMe) {
      skippable = skippable && e.stepper->claims_by_pc_only();
      continue;
    }
    if (!known && binary && skippable) claim = {binary, pc, in.exact_pc, static_cast<uint8_t>(i)};
    if (r.status == StepStatus::kSuccess || r.status == StepStatus::kStackBottom) return {r, e.stepper->kind()};
    // Keep the first specific error (the best-informed stepper's reason).
    if (!have_error) {
      first_error = {r, e.stepper->kind()};
      have_error = true;
    }
    skippable = false;
  }
  return first_error;
}

GroupOutcome StepperGroup::step(const StepInput& in) {
  Registers caller;
  const GroupResult r = step_into(in, caller);
  return {StepOutcome::of(r.result, caller), r.by};
}

}  // namespace swprof
