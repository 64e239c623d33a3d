#pragma once
// RAII owners of libdw's CFI and DWARF handles, for the CFI readers.

#include <elfutils/libdw.h>

#include <memory>

namespace swprof {

struct CfiDeleter {
  void operator()(Dwarf_CFI* c) const { dwarf_cfi_end(c); }
};
using CfiPtr = std::unique_ptr<Dwarf_CFI, CfiDeleter>;

struct DwarfDeleter {
  void operator()(Dwarf* d) const { dwarf_end(d); }
};
using DwarfPtr = std::unique_ptr<Dwarf, DwarfDeleter>;

}  // namespace swprof
