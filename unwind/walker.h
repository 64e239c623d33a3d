#pragma once
// Drives the stepper chain from the sampled registers to the outermost
// frame. The walker alone owns the guards: maximum depth, progress (pc or sp
// must change, sp must not go down except into a signal's interrupted
// context), caller pcs must be in executable mappings, and it says why every
// walk ended.

#include <cstddef>

#include "unwind/stepper_group.h"

namespace swprof {

struct WalkerOptions {
  size_t max_depth = 256;
};

class Walker {
 public:
  Walker(StepperGroup group, WalkerOptions options = {}) : group_(std::move(group)), options_(options) {}

  // Not const: the steppers and the group keep per-walker caches.
  WalkResult walk(const Registers& regs, const Memory& stack, const ProcessMaps& maps);

 private:
  StepperGroup group_;
  WalkerOptions options_;
};

}  // namespace swprof
