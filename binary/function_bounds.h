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
// place elsewhere. Outside every FDE, discovery runs as in function_bounds.
std::optional<uint64_t> function_start(const ElfBinary& binary, uint64_t vaddr);

}  // namespace swprof
