#pragma once
// x86-64 register values (binary/dwarf_regs.h numbers them), with a mask of
// which ones are known. Frame 0 knows every register the sample copied;
// caller frames know only what was recovered.

#include <array>
#include <cstdint>
#include <span>
#include <utility>

#include "binary/dwarf_regs.h"

namespace swprof {

struct SampleView;

class Registers {
 public:
  bool has(int reg) const { return (valid_ >> reg) & 1u; }
  uint64_t get(int reg) const { return value_[reg]; }
  void set(int reg, uint64_t v) {
    value_[reg] = v;
    valid_ |= 1u << reg;
  }
  void clear(int reg) { valid_ &= ~(1u << reg); }
  // For hot loops that compute the valid mask once: put() stores a value
  // without marking it known, set_valid_mask() then says which are.
  void put(int reg, uint64_t v) { value_[reg] = v; }
  void set_valid_mask(uint32_t mask) { valid_ = mask; }
  // Copies the values (not the valid bits) of the registers in Mask, one
  // store each.
  template <uint32_t Mask>
  void copy_values(const Registers& from) {
    [&]<int... R>(std::integer_sequence<int, R...>) {
      ((((Mask >> R) & 1u) ? void(value_[R] = from.value_[R]) : void()), ...);
    }(std::make_integer_sequence<int, kRegCount>{});
  }
  // Forgets every register not in `mask` (bit per DWARF register).
  void keep_only(uint32_t mask) { valid_ &= mask; }

  uint64_t pc() const { return value_[kRip]; }
  uint64_t sp() const { return value_[kRsp]; }
  uint64_t bp() const { return value_[kRbp]; }
  uint32_t valid_mask() const { return valid_; }

  // The user registers of a sample recorded with kX86_64RegsMask; empty when
  // the sample has none (kernel threads).
  static Registers from_sample(const SampleView& s);
  // The same from a sample's register values, in kX86_64RegsMask order, of
  // which only ip and sp are known when `ip_sp_only`.
  static Registers from_perf(std::span<const uint64_t> regs, bool ip_sp_only);

 private:
  std::array<uint64_t, kRegCount> value_{};
  uint32_t valid_ = 0;
};

}  // namespace swprof
