#include "unwind/signal_stepper.h"

#include <cstring>

namespace swprof {
namespace {

constexpr uint8_t kRestoreRt[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};

// gregs index -> DWARF register (glibc sys/ucontext.h REG_* order).
constexpr int kGregToDwarf[] = {kR8,  kR9,  kR10, kR11, kR12, kR13, kR14, kR15, kRdi,
                                kRsi, kRbp, kRbx, kRdx, kRax, kRcx, kRsp, kRip};

}  // namespace

StepOutcome SignalStepper::step(const StepInput& in) {
  // The handler's return address is the trampoline's first byte: no "- 1".
  const uint64_t pc = in.regs.pc();
  const Mapping* m = in.exact_pc ? in.mapping : in.maps.find(pc);
  if (!m || !m->binary) return StepOutcome::not_me();
  uint8_t code[sizeof kRestoreRt];
  if (!m->binary->read_code(m->to_vaddr(pc), code, sizeof code) || std::memcmp(code, kRestoreRt, sizeof code) != 0)
    return StepOutcome::not_me();
  Registers caller;
  const uint64_t gregs = in.regs.sp() + kGregsOffset;
  for (size_t i = 0; i < sizeof kGregToDwarf / sizeof kGregToDwarf[0]; ++i) {
    auto v = in.stack.read_u64(gregs + 8 * i);
    if (!v) return StepOutcome::fail(WalkEnd::kStackExhausted);
    caller.set(kGregToDwarf[i], *v);
  }
  return StepOutcome::success(caller, kFrameSignal);
}

}  // namespace swprof
