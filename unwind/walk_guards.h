#pragma once
// The checks every step must pass, in one place: the walker applies them to
// every frame; the frame-pointer and analysis steppers use the same ones to
// refuse a step (and fall through to the next stepper) instead of handing
// the walker a frame it would drop.

#include <cstdint>
#include <optional>

#include "unwind/address_space.h"
#include "unwind/memory.h"

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

// True when the memory is one buffer (a copied stack) holding no whole word
// at or above sp: no caller can be read from it, so a stepper that reads the
// stack need not look for the function around pc (discovering a stripped
// binary's functions: a compiler's cc1 takes 48 ms) to fail. A fault on a
// new stack page leaves a sample so: the kernel copied nothing.
inline bool no_stack_word_from(const Memory& stack, uint64_t sp) {
  const std::optional<ContiguousView> v = stack.contiguous();
  if (!v) return false;
  if (v->size < 8) return true;
  const uint64_t lowest = sp > v->base ? sp : v->base;
  return lowest - v->base > v->size - 8;
}

// True when the instruction before pc is `syscall` (0f 05): the registers
// of a thread inside a system call.
inline bool follows_syscall(const Mapping* m, uint64_t pc) {
  uint8_t code[2];
  return m && m->binary && m->binary->read_code(m->to_vaddr(pc) - 2, code, 2) && code[0] == 0x0f && code[1] == 0x05;
}

// A sample taken inside execve (WalkEnd::kNoMappingsYet): nothing was copied
// at sp, because the kernel copied from the new program's address space,
// and the pc is in no mapping (the new program's are not known yet) or, until
// the exec record is replayed, in the old program's, right after its
// `syscall`. (A stack-growth fault also leaves nothing at sp, but its pc is a
// memory access, not a system call.) `pc_mapping` is maps.find(pc).
inline bool sampled_inside_execve(uint64_t pc, uint64_t sp, const Memory& stack, const Mapping* pc_mapping) {
  return !stack.read_u64(sp) && (!pc_mapping || follows_syscall(pc_mapping, pc));
}

}  // namespace swprof
