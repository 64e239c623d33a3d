#pragma once
// The dynamic relocations of a binary that name things: `.rela.plt` (the PLT's
// GOT slots) and `.rela.dyn`, each entry with its symbol's name from the
// symbol table the relocation section links to (System V gABI, "Relocation";
// x86-64 psABI for the types). Only what naming PLT stubs needs.

#include <cstdint>
#include <string_view>
#include <vector>

namespace swprof {

class ElfBinary;

// x86-64 psABI relocation types used here.
inline constexpr uint32_t kRelocX86_64GlobDat = 6;
inline constexpr uint32_t kRelocX86_64JumpSlot = 7;
inline constexpr uint32_t kRelocX86_64IRelative = 37;

struct Relocation {
  uint64_t offset = 0;  // r_offset: the virtual address of the slot it fills
  uint32_t type = 0;
  uint32_t symbol = 0;  // index in the linked symbol table; 0: none
  int64_t addend = 0;
  std::string_view symbol_name;  // empty when there is no symbol (or no table); points into the file
};

class Relocations {
 public:
  // Reads both sections; a section that is absent, not SHT_RELA or damaged
  // gives what could be read of it (each entry and name bounds-checked).
  static Relocations read(const ElfBinary& binary);

  // `.rela.plt` and `.rela.dyn`, each sorted by offset.
  const std::vector<Relocation>& plt() const { return plt_; }
  const std::vector<Relocation>& dyn() const { return dyn_; }
  // Whether `.rela.plt` links to a symbol table (sh_link != 0).
  bool plt_has_symbol_table() const { return plt_has_symbol_table_; }

  // The relocation of slot `vaddr` in `.rela.plt`, else in `.rela.dyn`; nullptr when none.
  const Relocation* at(uint64_t vaddr) const;

 private:
  std::vector<Relocation> plt_, dyn_;
  bool plt_has_symbol_table_ = false;
};

}  // namespace swprof
