#pragma once
// The way from an exact pc to the function's return, for the callee-saved
// registers it leaves alone. At a return (or a tail call) every callee-saved
// register holds its caller's value (psABI §3.2.1), so a register that no
// instruction writes on the way there holds its caller's value already.
//
// This is what an epilogue needs: after `pop %rbp` the CFI of GCC and clang
// still says "rbp saved at CFA-16", a slot now below rsp and so outside any
// copied stack, while rbp itself holds the caller's value.
//
//   pop %rbx        <- rbx's slot is below rsp from here on
//   mov %rbp, %rax
//   pop %rbp        <- and rbp's from here on
//   ret

#include <cstdint>

#include "binary/elf_binary.h"
#include "binary/x86_decoder.h"

namespace swprof {

// Bound on the instructions followed from the pc to the return.
inline constexpr int kReturnPathMaxInstructions = 32;

// Of `registers` (a bit per DWARF number), those that no instruction writes
// on the way from ELF virtual address `vaddr` to a `ret`, followed through
// direct unconditional jumps. 0 when the way cannot be known from the code
// alone: a conditional or indirect jump, a call, an instruction that does
// not decode, code outside `binary`'s executable segments, or no return
// within kReturnPathMaxInstructions.
uint32_t registers_unchanged_to_return(X86Decoder& decoder, const ElfBinary& binary, uint64_t vaddr,
                                       uint32_t registers);

}  // namespace swprof
