#pragma once
// Compressed sections of an ELF file, and the bound on what they may claim.
//
// libelf decompresses a section (gABI SHF_COMPRESSED, or GNU's older
// .zdebug_* sections) whole, into memory of the size its header claims,
// when libdw or libdwfl read it (DWARF, symbol tables) and when elf_strptr
// reads a string table. libelf itself refuses only claims over 1000 times
// the compressed bytes, so a 300 KB file could take 300 MB per section. A
// claim is allowed here when it is at most kMaxInflation times the
// compressed bytes and at most kMaxSectionBytes: what a file costs in
// memory is bounded by its size. Real DWARF inflates 3 to 10 times.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gelf.h>

namespace swprof {

inline constexpr uint64_t kMaxInflation = 64;
inline constexpr uint64_t kMaxSectionBytes = uint64_t{1} << 30;

// A DWARF section's name: .debug_* or GNU's compressed .zdebug_*.
bool is_dwarf_section(std::string_view name);

// Empty when a section may inflate to `claimed` bytes from `packed`;
// otherwise why not ("claims 314572800 bytes uncompressed from 305791").
std::string inflation_problem(uint64_t claimed, uint64_t packed);

// Empty when section `scn` of `elf` (whose header is `header` and name
// `name`) is not compressed, or may be inflated; otherwise why not. A
// compression header libelf cannot read is no problem: libelf then
// inflates nothing.
std::string compressed_section_problem(Elf* elf, Elf_Scn* scn, const GElf_Shdr& header, std::string_view name);

struct OversizedSection {
  size_t index = 0;
  std::string name;     // empty when the section names cannot be read
  std::string problem;  // as inflation_problem says it
};

// The compressed sections of `elf` that claim more than the bounds allow.
// When the section name table is one of them, no name is read (elf_strptr
// would inflate it): it is listed, unnamed, and .zdebug_* sections cannot
// be told.
std::vector<OversizedSection> oversized_compressed_sections(Elf* elf);

// Sets section `index` of the ELF file `file` (whose headers `elf` read: 32
// or 64 bits, little-endian) aside, so that nothing finds it by name or by
// type and nothing inflates it: SHT_NOBITS, not compressed, and the first
// byte of its name changed (when the name table is plain). False when its
// headers do not allow it.
bool set_aside_section(std::span<uint8_t> file, Elf* elf, size_t index);

}  // namespace swprof
