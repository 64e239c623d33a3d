#pragma once
// An interpreter of DWARF call frame instructions (DWARF 5 §6.4.2; LSB 5.0
// "Exception Frames" for .eh_frame) that runs an FDE's program once, from
// its first instruction to its last, and reports every row of the table it
// describes as it goes: linear in the program's length, where asking libdw
// for the row at each address re-runs the program from its start every time.
//
// It keeps libdw's semantics (libdw/cfi.c) so that the rows are the ones
// libdw gives: the x86-64 ABI's initial rules (backends/x86_64_cfi.c) under
// the CIE's initial instructions; DW_CFA_remember_state saving the CFA rule
// with the register rules; a CFA offset change on an expression CFA making
// the CFA invalid; the register offsets kept to 61 bits. Only the registers
// a CfiRule recovers (DWARF 0..16) are tracked; rules for others are read
// and dropped.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "common/byte_reader.h"

namespace swprof {

// DWARF register numbers 0..16 (rax .. rip) are tracked.
inline constexpr unsigned kCfaTrackedRegs = 17;

struct CfaRegisterRule {
  enum Kind : uint8_t {
    kUnspecified,    // not mentioned: the ABI default (undefined on x86-64)
    kUndefined,
    kSameValue,
    kOffset,         // at CFA + value
    kValOffset,      // CFA + value
    kRegister,       // in register `value`
    kExpression,     // at the address `expression` computes (the CFA pushed first)
    kValExpression,  // the value `expression` computes (the CFA pushed first)
  };
  Kind kind = kUnspecified;
  int64_t value = 0;
  Bytes expression;
};

// The rules of one row.
struct CfaState {
  enum CfaKind : uint8_t { kCfaUndefined, kCfaOffset, kCfaExpression, kCfaInvalid };
  CfaKind cfa = kCfaUndefined;
  uint64_t cfa_register = 0;
  uint64_t cfa_offset = 0;  // two's complement, as libdw keeps it
  Bytes cfa_expression;
  std::array<CfaRegisterRule, kCfaTrackedRegs> regs{};
};

// What an FDE's program needs from its CIE.
struct CieProgram {
  Bytes initial_instructions;
  uint64_t code_alignment = 1;
  int64_t data_alignment = 1;
  uint8_t fde_encoding = 0;      // DW_EH_PE_* of DW_CFA_set_loc operands
  uint64_t section_vaddr = 0;    // vaddr of the CFI section's byte 0 (pcrel set_loc)
  const uint8_t* section_start = nullptr;
};

// The state every FDE of `cie` starts from: the x86-64 ABI defaults, then
// the CIE's initial instructions. nullopt when those are invalid (libdw then
// gives no row for any FDE of the CIE).
std::optional<CfaState> cie_initial_state(const CieProgram& cie);

// Runs `program` (an FDE's instructions, covering [lo, hi)) from `initial`
// and calls on_row(start, end, state) for each row, in address order,
// [start, end) within [lo, hi). Returns false when the program turns out
// invalid (an unknown opcode, an operand cut short, a restore without a
// remembered state): the rows before that point have been reported, the
// rest is lost, as with libdw.
using CfaRowCallback = std::function<void(uint64_t start, uint64_t end, const CfaState& state)>;
bool run_cfa_program(const CieProgram& cie, const CfaState& initial, Bytes program, uint64_t lo, uint64_t hi,
                     const CfaRowCallback& on_row);

}  // namespace swprof
