#pragma once
// The common CFI rule shape (kCfiSimple) applied to one frame, inline: the
// hot path of CfiStepper, and of the walker when it rebuilds the registers
// of frames it stepped by a cached rule (UnwindRule's fast kinds).
//
//   (rip, rsp, reg...) = (*(cfa + k_ra), cfa, *(cfa + k_reg)...)
//   where cfa = rsp or rbp + n

#include <array>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "binary/cfi_table.h"
#include "unwind/registers.h"
#include "unwind/unwind_rule.h"

namespace swprof {

// Registers that survive a call (psABI §3.2.1); rip and rsp are set by every step.
inline constexpr uint32_t kCalleeSavedRegs =
    (1u << kRbx) | (1u << kRbp) | (1u << kR12) | (1u << kR13) | (1u << kR14) | (1u << kR15);

// The register bit of each slot in a mask of slots (bit 0, the return
// address, left out): bits 1..6 index the table.
inline constexpr std::array<uint32_t, 64> kSlotRegBits = [] {
  std::array<uint32_t, 64> bits{};
  for (unsigned mask = 0; mask < 64; ++mask)
    for (int slot = 1; slot < kSavedSlotCount; ++slot)
      if ((mask << 1) & (1u << slot)) bits[mask] |= 1u << kSavedSlotReg[slot];
  return bits;
}();

// `rule` must be kCfiSimple. `Stack` reads words: read_u64(addr) checked,
// has_word(addr), and word(at, off) unchecked (WordView, CheckedReads).
// A callee-saved register whose slot is outside the copied stack (popped
// in an epilogue) becomes unknown; the return address must be readable;
// a CFA outside [2^15, 2^64 - 2^15) is an error, so no slot address
// (|k| < 2^15) wraps. The rule's fields are read into locals first and the
// valid mask is written once: a store into `caller` may alias any
// byte-typed field, which would force reloads.
template <typename Stack>
  requires requires(const Stack& s) { s.word(uint64_t{}, int64_t{}); }
[[gnu::always_inline]] inline Applied apply_simple_rule(const CfiRule& rule, const Registers& regs, const Stack& stack,
                                                        Registers& caller) {
  const uint32_t known = regs.valid_mask();
  const unsigned cfa_reg = rule.cfa_reg;
  const unsigned slots = rule.recover_mask & ~(1u << kSlotRa);
  const bool below_ra = rule.flags & kCfiSlotsBelowRa;
  if (!((known >> cfa_reg) & 1u)) return Applied::failed(WalkEnd::kNoUnwindInfo);
  uint64_t cfa;
  if (!checked_cfa(regs.get(cfa_reg), rule.cfa_offset, cfa)) return Applied::failed(WalkEnd::kNoUnwindInfo);
  auto ra = stack.read_u64(cfa + static_cast<int64_t>(rule.saved_offset[kSlotRa]));
  if (!ra) return Applied::failed(WalkEnd::kStackExhausted);
  caller.copy_values<kCalleeSavedRegs>(regs);
  uint32_t valid = (known & kCalleeSavedRegs) | (1u << kRip) | (1u << kRsp);
  if (slots) {
    if (below_ra && stack.has_word(cfa + static_cast<int64_t>(rule.slots_low))) [[likely]] {
      // Every slot lies between the lowest one and the return address: all
      // readable. Unrolled, one test per slot: no loop.
      auto recover = [&]<int slot>(std::integral_constant<int, slot>) {
        if (slots & (1u << slot)) caller.put(kSavedSlotReg[slot], stack.word(cfa, rule.saved_offset[slot]));
      };
      static_assert(kSavedSlotCount == 7);
      recover(std::integral_constant<int, kSlotRbp>{});
      recover(std::integral_constant<int, kSlotRbx>{});
      recover(std::integral_constant<int, kSlotR12>{});
      recover(std::integral_constant<int, kSlotR13>{});
      recover(std::integral_constant<int, kSlotR14>{});
      recover(std::integral_constant<int, kSlotR15>{});
      valid |= kSlotRegBits[slots >> 1];
    } else {
      for (unsigned mask = slots; mask; mask &= mask - 1) {
        const int slot = __builtin_ctz(mask);
        const uint32_t bit = 1u << kSavedSlotReg[slot];
        if (auto v = stack.read_u64(cfa + static_cast<int64_t>(rule.saved_offset[slot]))) {
          caller.put(kSavedSlotReg[slot], *v);
          valid |= bit;
        } else {
          valid &= ~bit;
        }
      }
    }
  }
  caller.put(kRip, *ra);
  caller.put(kRsp, cfa);
  caller.set_valid_mask(valid);
  return Applied::caller();
}

// Memory that is not one buffer, seen the way apply_simple_rule reads:
// has_word() is never sure, so every read is checked.
struct CheckedReads {
  const Memory& memory;
  std::optional<uint64_t> read_u64(uint64_t addr) const { return memory.read_u64(addr); }
  bool has_word(uint64_t) const { return false; }
  uint64_t word(uint64_t at, int64_t off) const { return memory.read_u64(at + static_cast<uint64_t>(off)).value_or(0); }
};

// The same on any Memory: through a by-value view when it is one buffer
// (stores into `caller` then cannot force the buffer's fields to be reloaded).
[[gnu::always_inline]] inline Applied apply_simple_rule(const CfiRule& rule, const Registers& regs, const Memory& stack,
                                                        Registers& caller) {
  if (auto view = stack.contiguous()) [[likely]] {
    if (auto words = WordView::of(*view)) return apply_simple_rule(rule, regs, *words, caller);
  }
  return apply_simple_rule(rule, regs, CheckedReads{stack}, caller);
}

}  // namespace swprof
