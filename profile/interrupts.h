#pragma once
// Time a program spent in interrupt handlers: the machine's work done while
// the program ran (reschedule and function-call IPIs, device interrupts, the
// local timer), not the program's own. On a busy machine a CPU-bound program
// gets preempted from such handlers, and cpu-clock samples pile up in the
// scheduler under them: runs of the same program then differ in kernel
// functions that say nothing about its code.

#include <cstdint>
#include <string_view>

#include "profile/profile.h"

namespace swprof {

// Whether a kernel function is an x86-64 entry point for an asynchronous
// interrupt (asm_sysvec_*, asm_common_interrupt, ...; and the older kernels'
// *_interrupt / common_interrupt / ret_from_intr), as opposed to a system call
// or an exception such as a page fault, which the program caused.
bool is_interrupt_entry(std::string_view function);

// Charges every sample taken inside an interrupt handler to the code the
// interrupt stopped: each stack is cut at its first interrupt entry frame, so
// the sample's leaf becomes the interrupted frame (user code, or the kernel
// code of a system call). Weights move with the samples; the profile's totals
// stay. Returns the samples moved.
uint64_t charge_interrupts_to_interrupted(Profile& profile);

}  // namespace swprof
