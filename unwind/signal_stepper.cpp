#include "unwind/signal_stepper.h"

#include <cstring>

namespace swprof {
namespace {

constexpr uint8_t kRestoreRt[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};

// gregs index -> DWARF register (glibc sys/ucontext.h REG_* order).
constexpr int kGregToDwarf[] = {kR8,  kR9,  kR10, kR11, kR12, kR13, kR14, kR15, kRdi,
                                kRsi, kRbp, kRbx, kRdx, kRax, kRcx, kRsp, kRip};

}  // namespace

bool SignalStepper::is_trampoline(const ElfBinary& binary, uint64_t vaddr) {
  uint8_t code[sizeof kRestoreRt];
  return binary.read_code_scattered(vaddr, code, sizeof code) && std::memcmp(code, kRestoreRt, sizeof code) == 0;
}

bool SignalStepper::in_trampoline(const ElfBinary& binary, uint64_t vaddr, bool exact) {
  if (is_trampoline(binary, vaddr)) return true;
  // A sample taken in the trampoline itself: at its `syscall`, or in the
  // kernel during rt_sigreturn before it restored the registers (the user pc
  // is then just past the `syscall`). rsp still points at the ucontext.
  return exact && ((vaddr >= kSyscallOffset && is_trampoline(binary, vaddr - kSyscallOffset)) ||
                   (vaddr >= sizeof kRestoreRt && is_trampoline(binary, vaddr - sizeof kRestoreRt)));
}

StepAnswer SignalStepper::step(const StepInput& in, Registers& caller) {
  // The handler's return address is the trampoline's first byte: no "- 1".
  const uint64_t pc = in.regs.pc();
  const Mapping* m = in.mapping && pc >= in.mapping->start && pc < in.mapping->end ? in.mapping : in.maps.find(pc);
  if (!m || !m->binary || !in_trampoline(*m->binary, m->to_vaddr(pc), in.address.is_exact()))
    return StepAnswer::not_mine_by_pc();
  caller = Registers();
  const uint64_t gregs = in.regs.sp() + kGregsOffset;
  for (size_t i = 0; i < sizeof kGregToDwarf / sizeof kGregToDwarf[0]; ++i) {
    auto v = in.stack.read_u64(gregs + 8 * i);
    if (!v) return StepAnswer::failed(WalkEnd::kStackExhausted);
    caller.set(kGregToDwarf[i], *v);
  }
  return StepAnswer::caller(kFrameSignal);
}

}  // namespace swprof
