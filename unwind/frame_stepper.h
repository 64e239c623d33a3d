#pragma once
// The stepper interface, after Dyninst StackwalkerAPI's FrameStepper: given
// the current frame, produce the caller's registers, or say the stack ends
// here, or that this stepper does not handle this frame.

#include <cstdint>

#include "unwind/address_space.h"
#include "unwind/frame.h"
#include "unwind/memory.h"
#include "unwind/registers.h"

namespace swprof {

struct CfiRule;

struct StepInput {
  const Registers& regs;      // the current frame's known registers
  const Memory& stack;        // the copied stack (reads outside fail)
  const Mapping* mapping;     // the mapping holding regs.pc(), or nullptr
  const ProcessMaps& maps;    // the whole address space (for the wanderer)
  bool exact_pc;              // pc is the interrupted instruction (frame 0, signal), not a return address
  int depth;                  // 0 for the sampled frame

  // The address to look unwind info up for: a return address points after
  // the call, which may be past the end of the calling function.
  uint64_t lookup_pc() const { return exact_pc ? regs.pc() : regs.pc() - 1; }
};

enum class StepStatus : uint8_t {
  kSuccess,     // `caller` holds the caller frame's registers
  kStackBottom, // this is the outermost frame
  kNotMe,       // this stepper does not handle this frame: try the next one
  kError,       // this stepper handles the frame but could not step (see `error`)
};

// What a step decided; the caller's registers are written separately.
struct StepResult {
  StepStatus status = StepStatus::kNotMe;
  uint8_t caller_flags = 0;  // FrameFlags for the caller frame
  WalkEnd error = WalkEnd::kNoUnwindInfo;

  static constexpr StepResult not_me() { return {}; }
  static constexpr StepResult bottom() { return {StepStatus::kStackBottom, 0, WalkEnd::kBottom}; }
  static constexpr StepResult fail(WalkEnd why) { return {StepStatus::kError, 0, why}; }
  static constexpr StepResult success(uint8_t flags = 0) { return {StepStatus::kSuccess, flags, WalkEnd::kBottom}; }
};

// A step's result together with the caller's registers, as one value.
struct StepOutcome {
  StepStatus status = StepStatus::kNotMe;
  Registers caller;
  uint8_t caller_flags = 0;  // FrameFlags for the caller frame
  WalkEnd error = WalkEnd::kNoUnwindInfo;

  static StepOutcome not_me() { return {}; }
  static StepOutcome bottom() { return {StepStatus::kStackBottom, {}, 0, WalkEnd::kBottom}; }
  static StepOutcome fail(WalkEnd why) { return {StepStatus::kError, {}, 0, why}; }
  static StepOutcome success(const Registers& caller, uint8_t flags = 0) {
    return {StepStatus::kSuccess, caller, flags, WalkEnd::kBottom};
  }
  static StepOutcome of(const StepResult& r, const Registers& caller) {
    return {r.status, r.status == StepStatus::kSuccess ? caller : Registers{}, r.caller_flags, r.error};
  }
  StepResult result() const { return {status, caller_flags, error}; }
};

// Two ways to step, after Dyninst's getCallerFrame(in, out): step_into()
// writes the caller's registers into a frame the walker owns (the hot path:
// nothing is copied), step() returns them as a value (simple steppers,
// tests). Override either; each defaults to the other.
class FrameStepper {
 public:
  virtual ~FrameStepper() = default;
  virtual StepperKind kind() const = 0;
  // True when whether this stepper answers not_me, and whether it answers
  // stack_bottom, depend only on the frame's binary, pc and exactness (not
  // on registers or stack contents): the group may then remember that it
  // passes such a frame on, or that the frame is the bottom.
  virtual bool claims_by_pc_only() const { return false; }
  // For a stepper that claims by pc alone: the CFI rule of the simple shape
  // (CfiRule::kCfiSimple) that its step applies to every frame at this
  // frame's (binary, pc, exactness), or nullptr. The group remembers the
  // rule with its claim and applies it directly (apply_simple_rule) to the
  // next such frame, without asking the steppers; any answer other than
  // success falls back to asking them. The rule must outlive the stepper.
  virtual const CfiRule* simple_rule(const StepInput&) { return nullptr; }
  virtual StepOutcome step(const StepInput& in) {
    Registers caller;
    const StepResult r = step_into(in, caller);
    return StepOutcome::of(r, caller);
  }
  virtual StepResult step_into(const StepInput& in, Registers& caller) {
    const StepOutcome out = step(in);
    if (out.status == StepStatus::kSuccess) caller = out.caller;
    return out.result();
  }
};

}  // namespace swprof
