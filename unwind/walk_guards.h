#pragma once
// The checks every step must pass, in one place: the walker applies them to
// every frame; the frame-pointer and analysis steppers use the same ones to
// refuse a step (and fall through to the next stepper) instead of handing
// the walker a frame it would drop.

#include <cstdint>
#include <optional>

#include "unwind/address_space.h"

namespace swprof {

// base + offset, or nullopt when it wraps past either end of the address space.
inline std::optional<uint64_t> offset_address(uint64_t base, int64_t offset) {
  uint64_t out;
  if (__builtin_add_overflow(base, offset, &out)) return std::nullopt;
  return out;
}

// A zero return address ends every ABI-conforming stack.
inline bool ends_stack(uint64_t caller_pc) { return caller_pc == 0; }

// The caller's sp is above the callee's: stacks grow down, so every return
// pops (a signal's interrupted context is the exception: moved()).
inline bool sp_went_up(uint64_t sp, uint64_t caller_sp) { return caller_sp > sp; }

// Progress into a signal's interrupted context: pc or sp changed.
inline bool moved(uint64_t pc, uint64_t sp, uint64_t caller_pc, uint64_t caller_sp) {
  return caller_sp != sp || caller_pc != pc;
}

// Code the caller can return into.
inline bool is_code(const Mapping* m) { return m && m->executable; }
inline bool in_executable_mapping(const ProcessMaps& maps, uint64_t addr) { return is_code(maps.find(addr)); }

}  // namespace swprof
