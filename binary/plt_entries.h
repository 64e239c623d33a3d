#pragma once
// The PLT stubs of an x86-64 binary and their names, as perf names them
// (tools/perf/util/symbol-elf.c, dso__synthesize_plt_symbols): "write@plt"
// for the stub that jumps through write's GOT slot, ".plt" for the lazy
// binding header, "offset_0x1060@plt" (the stub's file offset) when the
// relocation names no symbol. Sections:
//   .plt      header + lazy stubs (jmp *GOT(%rip); push i; jmp .plt), or, with
//             .plt.sec (IBT, -z ibtplt), only the header and the lazy halves:
//             then ".plt" spans the whole section
//   .plt.sec  the stubs called by the code (endbr64; bnd jmp *GOT(%rip))
//   .plt.got  stubs for functions also used as pointers (GOT slot from .rela.dyn)
// Each stub's GOT slot is decoded from its `jmp *disp(%rip)` and matched to
// the relocation of that slot; a stub without a decodable jmp falls back to
// perf's rule: stub i is `.rela.plt` entry i in r_offset order.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace swprof {

class ElfBinary;

struct PltEntry {
  uint64_t start = 0;  // ELF virtual address
  uint64_t size = 0;
  std::string name;    // "write@plt", ".plt", "offset_0x1060@plt"
  std::string symbol;  // the relocation's symbol ("write", a mangled C++ name), empty when none
};

class PltEntries {
 public:
  PltEntries() = default;
  explicit PltEntries(std::vector<PltEntry> entries);

  const std::vector<PltEntry>& entries() const { return entries_; }  // sorted by start
  // The stub (or header) holding vaddr; nullptr when none.
  const PltEntry* at(uint64_t vaddr) const;

 private:
  std::vector<PltEntry> entries_;
};

// Empty when the binary has no .plt (as perf: no .plt, no PLT names).
PltEntries read_plt_entries(const ElfBinary& binary);

}  // namespace swprof
