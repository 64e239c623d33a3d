#pragma once
// x86-64 registers in DWARF numbering (System V psABI, "DWARF Register
// Number Mapping"): the columns of CFI rules and the indexes of Registers.

#include <cstdint>

namespace swprof {

enum DwarfReg : uint8_t {
  kRax = 0, kRdx = 1, kRcx = 2, kRbx = 3, kRsi = 4, kRdi = 5, kRbp = 6, kRsp = 7,
  kR8 = 8, kR9 = 9, kR10 = 10, kR11 = 11, kR12 = 12, kR13 = 13, kR14 = 14, kR15 = 15,
  kRip = 16,  // the return address column
  kRegCount = 17,
};

}  // namespace swprof
