#pragma once
// Steppers in priority order (Dyninst's StepperGroup): the first to answer
// success or stack_bottom decides the frame; not_me falls through to the
// next; an error is remembered and the next stepper gets its chance.

#include <array>
#include <memory>
#include <vector>

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

class StepperGroup {
 public:
  // Lower priority runs first; equal priorities keep insertion order.
  void add(std::unique_ptr<FrameStepper> stepper, int priority);
  // Writes the caller's registers into `caller` (on success).
  GroupResult step_into(const StepInput& in, Registers& caller);
  GroupOutcome step(const StepInput& in);
  bool empty() const { return steppers_.empty(); }

 private:
  struct Entry {
    int priority;
    std::unique_ptr<FrameStepper> stepper;
  };
  // Which stepper first claimed (did not answer not_me for) a frame at this
  // (binary, address in the binary, exactness). When every stepper before it
  // decides by those alone (claims_by_pc_only), they need not be asked again
  // for such a frame. Direct-mapped; a miss just asks all of them.
  struct Claim {
    const ElfBinary* binary = nullptr;
    uint64_t pc = 0;  // ELF vaddr
    bool exact = false;
    uint8_t first = 0;
  };
  static constexpr size_t kClaimSlots = 1024;
  std::vector<Entry> steppers_;
  std::array<Claim, kClaimSlots> claims_{};
};

}  // namespace swprof
