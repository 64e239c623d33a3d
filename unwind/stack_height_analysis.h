#pragma once
// Stack-height analysis for code without unwind info: a forward dataflow
// over the instructions reachable from a function's entry (Capstone-decoded,
// following direct jumps) that tracks, before every instruction, where the
// canonical frame address (CFA, the caller's rsp) is:
//
//        |  caller's frame      |
//        +----------------------+  <- CFA = rsp + cfa_from_rsp
//        |  return address      |     CFA - 8 (the height at entry: rsp = CFA - 8)
//        +----------------------+
//        |  pushes, locals      |  (caller's rbp, if pushed, at CFA + rbp_slot)
//        +----------------------+  <- rsp
//
// Modelled: push/pop, add/sub rsp, imm, lea rsp, [rsp + imm], mov rbp, rsp
// (and lea rbp, [rsp + imm]), mov rsp, rbp, lea rsp, [rbp + imm], leave,
// and rsp, imm (rsp realigned: only an rbp frame still knows the CFA), saving
// and restoring rbp on the stack. A realigned stack without an rbp frame
// (hand-written assembly, x86inc's PROLOGUE: `mov reg, rsp; and rsp, -N;
// sub rsp, M`, then maybe `mov [rsp + K], reg`; back with `mov rsp, reg` or
// `mov rsp, [rsp + K]`) keeps the CFA through that copy of the old rsp: the
// register until it is written (or, caller-saved, a call comes), the stack
// slot while rsp moves by known amounts and nothing else is stored there.
// Every path's writes to the general-purpose registers are kept (a call
// writes them all), so a caller gets the registers this function has not
// touched. Any other write to rsp makes the height unknown, any other write to rbp
// drops the rbp frame. Where paths disagree the disagreeing parts become
// unknown.
//
// Heuristics: a call's fall-through edge is weaker than a jump (the callee
// may not return: abort, __stack_chk_fail), so where they disagree the jump
// wins. Code no edge reaches (switch-table targets behind an indirect jmp,
// exception landing pads) gets what the function's indirect jumps agree on
// (those at the entry height are tail calls and do not count), else what
// its calls agree on.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "binary/elf_binary.h"
#include "binary/function_bounds.h"
#include "binary/x86_decoder.h"
#include "common/byte_reader.h"

namespace swprof {

// Where the CFA and the caller's rbp are, before one instruction.
struct StackHeight {
  enum class RbpRule : uint8_t {
    kUnknown,    // the caller's rbp was overwritten and not saved where we know
    kSameValue,  // rbp still holds the caller's value
    kSaved,      // the caller's rbp is at CFA + rbp_slot
  };

  std::optional<int32_t> cfa_from_rsp;  // CFA = rsp + cfa_from_rsp
  std::optional<int32_t> cfa_from_rbp;  // CFA = rbp + cfa_from_rbp: rbp is this function's frame pointer
  RbpRule rbp = RbpRule::kUnknown;
  int32_t rbp_slot = 0;  // kSaved: the caller's rbp is at CFA + rbp_slot (negative)
  // A copy of an earlier rsp (a realigned stack's way back):
  int8_t cfa_reg = -1;    // CFA = register cfa_reg + cfa_from_reg (DWARF number; -1: none)
  int32_t cfa_from_reg = 0;
  std::optional<int32_t> cfa_slot;  // CFA = *(rsp + *cfa_slot) + cfa_from_slot
  int32_t cfa_from_slot = 0;
  // The GPRs (a bit per DWARF number) some path from the entry may have
  // written, callees included (a call writes them all): the others still
  // hold the caller's values.
  uint32_t written = 0;

  bool known() const { return cfa_from_rsp || cfa_from_rbp || cfa_reg >= 0 || cfa_slot; }
  bool operator==(const StackHeight&) const = default;
};

// The analysis of one function: the stack height before every instruction
// the dataflow reached, sorted by address.
class FunctionStackHeights {
 public:
  struct Entry {
    uint64_t addr;
    uint8_t size;
    StackHeight height;
  };

  // The height before the instruction containing `addr` (before a call, the
  // height is also the one after it returns); unknown when no reached
  // instruction contains it.
  StackHeight at(uint64_t addr) const;
  const std::vector<Entry>& entries() const { return entries_; }
  // Instructions the dataflow processed (bounded by kMaxWork).
  size_t work() const { return work_; }

 private:
  friend class StackHeightAnalysis;
  std::vector<Entry> entries_;
  size_t work_ = 0;
};

// Runs and caches the analysis. One instance per unwinding thread: not
// thread-safe.
class StackHeightAnalysis {
 public:
  static constexpr size_t kMaxWork = 20000;             // instructions processed per function
  static constexpr size_t kMaxFunctionBytes = 256 * 1024;

  explicit StackHeightAnalysis(size_t max_cached_pcs = 8192) : max_cached_pcs_(max_cached_pcs) {}

  // The height at `pc` in the function whose bytes are `code`, code[0] at
  // `start` (uncached; for tests and code outside an ElfBinary).
  StackHeight analyze(Bytes code, uint64_t start, uint64_t pc);

  // The whole function, uncached.
  FunctionStackHeights analyze_function(Bytes code, uint64_t start);

  // The height at ELF vaddr `pc` inside `fn` of `binary` (its bytes:
  // [start, min(end, start + kMaxFunctionBytes))), cached per (binary, pc).
  StackHeight at(const ElfBinary& binary, const FunctionBounds& fn, uint64_t pc);

 private:
  struct Key {
    const ElfBinary* binary;
    uint64_t addr;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<const void*>()(k.binary) ^ (std::hash<uint64_t>()(k.addr) * 0x9e3779b97f4a7c15ull);
    }
  };
  // A few recently analyzed functions, so a new pc in one of them costs a lookup.
  struct RecentFunction {
    Key key{nullptr, 0};
    FunctionStackHeights heights;
  };
  static constexpr size_t kRecentFunctions = 8;

  const FunctionStackHeights& function(const ElfBinary& binary, const FunctionBounds& fn);

  X86Decoder decoder_;
  size_t max_cached_pcs_;
  std::unordered_map<Key, StackHeight, KeyHash> by_pc_;
  std::vector<RecentFunction> recent_;
  size_t next_recent_ = 0;
};

}  // namespace swprof
