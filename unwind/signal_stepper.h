#pragma once
// Signal frames: a handler returns into the sigreturn trampoline
// (`__restore_rt` in libc, or in the vDSO), recognized by its exact bytes:
//
//   48 c7 c0 0f 00 00 00    mov $0xf, %rax      (rt_sigreturn)
//   0f 05                   syscall
//
// When the pc is there (or, for a sample taken in the trampoline, at its
// `syscall` or just past it), rsp points at the ucontext_t the kernel pushed, and
// the interrupted registers are rebuilt from its mcontext (gregs):
//
//   rsp -> ucontext_t { uc_flags; uc_link; stack_t uc_stack;   // 40 bytes
//                       mcontext_t { gregs[23]: R8..R15, RDI, RSI, RBP, RBX,
//                                    RDX, RAX, RCX, RSP, RIP, ... } }

#include "unwind/frame_stepper.h"

namespace swprof {

class SignalStepper : public FrameStepper {
 public:
  StepperKind kind() const override { return StepperKind::kSignal; }
  // not_mine by the pc alone; the caller (the interrupted context) comes
  // from the stack's contents, so it is not cacheable.
  StepAnswer step(const StepInput& in, Registers& caller) override;

  // The byte offset of gregs[i] from the ucontext start.
  static constexpr uint64_t kGregsOffset = 40;

  // True when the trampoline's bytes start at vaddr in the binary's
  // executable code. Read at the pc itself (a few bytes), not by scanning
  // the binary: a browser's code is hundreds of megabytes; and in big code
  // read from the file, not its mapping, which would keep every page asked
  // about resident (ElfBinary::read_code_scattered). The walker caches the
  // answer per address.
  static bool is_trampoline(const ElfBinary& binary, uint64_t vaddr);
  // The trampoline's start, or (for an exact pc: the sampled frame or an
  // interrupted one) its `syscall` at +7 or the byte after it at +9.
  static bool in_trampoline(const ElfBinary& binary, uint64_t vaddr, bool exact);
  static constexpr uint64_t kSyscallOffset = 7;
};

}  // namespace swprof
