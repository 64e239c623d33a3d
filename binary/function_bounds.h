#pragma once
// The function holding an address of a binary, from the best source there is
// (one place for the unwinder's steppers and the symbolizer to ask):
//   1. a symbol with a size that covers it
//   2. a Go function of the binary's pclntab (binary/go_pclntab.h)
//   3. a PLT stub
//   4. a symbol of size 0, up to the next symbol
//   5. the function of `.init` or `.fini` (the whole section, the one start
//      discovery finds there)
//   6. the discovered function (binary/function_starts.h; discovery runs on
//      this first need, once per binary)

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

namespace swprof {

class ElfBinary;

struct FunctionBounds {
  uint64_t start = 0, end = 0;  // [start, end): ELF virtual addresses
  std::string_view name;        // empty when unnamed (discovered); points into the binary's data
  uint16_t sources = 0;         // StartSource bits of a discovered function, 0 otherwise
};

std::optional<FunctionBounds> function_bounds(const ElfBinary& binary, uint64_t vaddr);

// The start of the function holding vaddr, for naming code without a name,
// found without discovery wherever an FDE covers vaddr: the last of the
// FDE's start, a symbol or the entry point at or below vaddr. Where the FDE
// begins at a function's entry, that is function_bounds(...)->start:
// discovery's function is the one starting at the last of those seeds. (A
// start that only descent or an init array gives strictly inside such an
// FDE, a second entry of hand-written code, is not seen.) Where it begins
// inside a frame (a .cold part), it is the part's start, which discovery may
// place elsewhere. In the entry code (below), the entry point. Elsewhere,
// discovery runs as in function_bounds.
std::optional<uint64_t> function_start(const ElfBinary& binary, uint64_t vaddr);

class X86Decoder;

// The program's entry code, [entry point, end): from the ELF entry point to
// the end of its first instruction that does not fall through (ld.so: `jmp
// *%r12` into the program; _start: `hlt` after calling __libc_start_main),
// at most 64 instructions, stopping early where another function's symbol
// begins; in a binary without symbols, where an FDE begins (whole-binary
// discovery would cost every stripped program its price in every report,
// for code that the stop instruction ends anyway), or with no FDEs either, a
// discovered function. Calls fall through. nullopt without an entry point.
std::optional<std::pair<uint64_t, uint64_t>> entry_code(const ElfBinary& binary, X86Decoder& decoder);

}  // namespace swprof
