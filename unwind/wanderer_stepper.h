#pragma once
// Last resort: scan up the copied stack for a word that looks like a return
// address -- it points into an executable mapping just after a call
// instruction. Frames it makes are guesses (kFrameGuess) and shown as such.

#include <array>
#include <cstdint>

#include "unwind/frame_stepper.h"

namespace swprof {

class WandererStepper : public FrameStepper {
 public:
  explicit WandererStepper(size_t max_words = 1024) : max_words_(max_words) {}
  StepperKind kind() const override { return StepperKind::kWanderer; }
  StepAnswer step(const StepInput& in, Registers& caller) override;

  // Whether the bytes before `ret` in `m` end with a call instruction.
  static bool follows_call(const Mapping& m, uint64_t ret);
  // ... with a call through a register or memory (not `call rel32`).
  static bool follows_indirect_call(const Mapping& m, uint64_t ret);
  // Whether the 7 bytes before a return address end with such a call.
  static bool ends_with_indirect_call(const std::array<uint8_t, 7>& bytes);

 private:
  size_t max_words_;
};

}  // namespace swprof
