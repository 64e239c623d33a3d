#pragma once
// Names for the start-up code of an executable without symbols, where its
// code proves them:
//
//   _start                  the ELF entry point of an executable (ET_EXEC,
//                           or ET_DYN flagged DF_1_PIE): what the kernel
//                           runs first, ld's default entry symbol
//   main                    the function glibc's entry code (start.S, as
//                           2.34 and later build it: init and fini passed as
//                           0) hands to __libc_start_main in rdi
//   __libc_start_main       that entry code's call target, when it is a
//                           direct call (static glibc)
//   __libc_start_call_main  the one function __libc_start_main calls
//                           (static glibc, 2.34 on) that calls through a
//                           pointer and passes its result straight to another
//                           call: exit(main(argc, argv, environ))
//
// The entry code must match start.S byte for byte but for the address of
// main and the call's encoding. __libc_start_main's extent and its callees'
// are their FDEs (static glibc keeps its CFI); without them, or with more than
// one candidate, __libc_start_call_main stays unnamed.
//
// Static musl (crt1.c and arch/x86_64/crt_arch.h, libc without CFI):
//
//   _start                  the entry point, as above
//   _start_c                what the entry code, musl's byte for byte but for
//                           two displacements, calls
//   main, __libc_start_main _start_c's first argument (the code address it
//                           last puts in rdi) and the target of its jump (or
//                           call), which must be its first branch
//   libc_start_main_stage2  the function __libc_start_main ends by jumping
//                           to through a register it loaded with that
//                           address, when it calls through a pointer and
//                           passes the result straight to another call:
//                           exit(main(...)); the caller of main in every
//                           stack, since _start_c and __libc_start_main leave
//                           by tail jumps
//
// musl's code has no FDEs: its functions are read from their start to the
// first instruction that does not fall through, at most 64 instructions.
// Anything else (other libcs, older glibc) names only _start.

#include <cstdint>
#include <optional>
#include <string_view>

namespace swprof {

class ElfBinary;

struct StartupFunctions {
  uint64_t start = 0;  // ELF virtual addresses; 0 where not proven
  uint64_t main = 0;
  uint64_t libc_start_main = 0;
  uint64_t libc_start_call_main = 0;
  uint64_t start_c = 0;                 // musl
  uint64_t libc_start_main_stage2 = 0;  // musl

  // The name of the function beginning at `vaddr`, empty when none.
  std::string_view name_at(uint64_t vaddr) const;
};

// Reads the binary's entry code (and, for static glibc, __libc_start_main's
// callees). Cached per binary: ElfBinary::startup_functions().
StartupFunctions find_startup_functions(const ElfBinary& binary);

struct StartupFunction {
  std::string_view name;
  uint64_t start = 0;
};
// The start-up function holding `vaddr` (binary/function_bounds.h's
// function_start is one of the above), for code no symbol names.
std::optional<StartupFunction> startup_function_at(const ElfBinary& binary, uint64_t vaddr);

}  // namespace swprof
