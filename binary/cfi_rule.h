#pragma once
// CfiRule: one row of unwind info as a compact value (how to get the
// caller's CFA, return address and callee-saved registers at any pc of a
// range), and its description as formulas.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "binary/dwarf_regs.h"

namespace swprof {

// How to compute the Canonical Frame Address (DWARF 5 §6.4.1), the value of
// rsp in the caller right before the call instruction. `off` is
// CfiRule::cfa_offset, `reg` is CfiRule::cfa_reg.
enum class CfaRule : uint8_t {
  kRspOffset,   // CFA = rsp + off
  kRbpOffset,   // CFA = rbp + off
  kRegOffset,   // CFA = reg + off  (reg must be known in the current frame, e.g. r10 in a DRAP prologue)
  kDerefReg,    // CFA = *(reg + off)  (DW_CFA_def_cfa_expression: DW_OP_bregN off; DW_OP_deref — GCC's DRAP)
  kPlt,         // CFA = rsp + off + ((rip & 15) >= K ? 8 : 0), K = CfiRule::plt_threshold
                // (GNU ld's .plt expression: DW_OP_breg7 off; DW_OP_breg16 0; DW_OP_lit15;
                //  DW_OP_and; DW_OP_litK; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus)
};

// How to recover one register of the caller (DWARF 5 §6.4.1 register rules).
// `off` is CfiRule::saved_offset[slot].
enum class SavedRule : uint8_t {
  kUndefined,   // unknown in the caller; for the return address: this is the outermost frame
  kSameValue,   // caller's value = this frame's value (not saved: not changed)
  kAtCfa,       // caller's value = *(CFA + off)   (DW_CFA_offset)
  kValCfa,      // caller's value = CFA + off      (DW_CFA_val_offset)
  kAtRbp,       // caller's value = *(rbp + off)   (DW_CFA_expression reg: DW_OP_breg6 off — DRAP)
};

// The registers a CfiRule recovers: the return address and the callee-saved
// registers of the System V x86-64 ABI. Caller-saved registers are not
// recovered (their caller values are dead across a call).
enum SavedSlot : uint8_t { kSlotRa, kSlotRbp, kSlotRbx, kSlotR12, kSlotR13, kSlotR14, kSlotR15, kSavedSlotCount };
inline constexpr std::array<uint8_t, kSavedSlotCount> kSavedSlotReg = {kRip, kRbp, kRbx, kR12, kR13, kR14, kR15};

enum CfiRuleFlags : uint8_t {
  kCfiSignalFrame = 1,  // the FDE's CIE has the 'S' augmentation: the caller's pc is exact
  kCfiSimple = 2,       // set by finalize(): CFA = rsp/rbp + n and every recovered register at CFA + k
  kCfiSlotsBelowRa = 4, // set by finalize() on simple rules: no recovered slot lies above the return address's
};
inline constexpr uint8_t kCfiDerivedFlags = kCfiSimple | kCfiSlotsBelowRa;

// One row of unwind info: how to get the caller's registers at any pc of a
// range. 32 bytes; compiled once, applied many times (see CfiStepper).
struct CfiRule {
  int32_t cfa_offset = 0;
  CfaRule cfa = CfaRule::kRspOffset;
  uint8_t cfa_reg = kRsp;       // DWARF register number of the CFA base
  uint8_t plt_threshold = 0;    // K of CfaRule::kPlt
  uint8_t flags = 0;            // CfiRuleFlags
  std::array<SavedRule, kSavedSlotCount> saved{SavedRule::kUndefined, SavedRule::kSameValue, SavedRule::kSameValue,
                                               SavedRule::kSameValue, SavedRule::kSameValue, SavedRule::kSameValue,
                                               SavedRule::kSameValue};
  // Bit per slot whose rule is not "same value": the slots a step must
  // recover. Set by finalize(); 0 on a rule built by hand (then derived).
  uint8_t recover_mask = 0;
  std::array<int16_t, kSavedSlotCount> saved_offset{};
  // Simple rules: the lowest saved_offset of a recovered slot. With
  // kCfiSlotsBelowRa, every slot is in the copied stack when CFA + this is
  // and the return address is. Set by finalize().
  int16_t slots_low = 0;

  SavedRule ra() const { return saved[kSlotRa]; }
  uint8_t slots_to_recover() const {
    uint8_t mask = 0;
    for (int slot = 0; slot < kSavedSlotCount; ++slot)
      if (saved[slot] != SavedRule::kSameValue) mask |= static_cast<uint8_t>(1u << slot);
    return mask;
  }
  void finalize() {
    recover_mask = slots_to_recover();
    bool simple = (cfa == CfaRule::kRspOffset || cfa == CfaRule::kRbpOffset) && saved[kSlotRa] == SavedRule::kAtCfa &&
                  !(flags & kCfiSignalFrame);
    for (int slot = 0; slot < kSavedSlotCount; ++slot)
      simple = simple && (saved[slot] == SavedRule::kSameValue || saved[slot] == SavedRule::kAtCfa);
    flags = static_cast<uint8_t>(flags & ~kCfiDerivedFlags);
    slots_low = 0;
    if (!simple) return;
    flags |= kCfiSimple;
    bool below_ra = true;
    slots_low = saved_offset[kSlotRa];
    for (int slot = 0; slot < kSavedSlotCount; ++slot) {
      if (!((recover_mask >> slot) & 1)) continue;
      below_ra = below_ra && saved_offset[slot] <= saved_offset[kSlotRa];
      slots_low = std::min(slots_low, saved_offset[slot]);
    }
    if (below_ra) flags |= kCfiSlotsBelowRa;
  }
  // recover_mask, slots_low and the derived flags take no part in equality.
  bool operator==(const CfiRule& o) const {
    return cfa_offset == o.cfa_offset && cfa == o.cfa && cfa_reg == o.cfa_reg && plt_threshold == o.plt_threshold &&
           (flags & ~kCfiDerivedFlags) == (o.flags & ~kCfiDerivedFlags) && saved == o.saved &&
           saved_offset == o.saved_offset;
  }
};
static_assert(sizeof(CfiRule) <= 32);

// The rule as formulas, e.g. "cfa=rbp+16 ra=[cfa-8] rbp=[cfa-16] rbx=undef":
// the CFA, the return address, then each callee-saved register whose rule is
// not "same value"; " signal" for a signal frame.
std::string describe(const CfiRule& rule);

}  // namespace swprof
