#pragma once
// DWARF call frame information compiled an FDE at a time, on the first
// lookup of a pc it covers: the same rules as CfiTable::compile (the whole
// table, cfi_table.h) gives for every pc, at a cost proportional to the code
// that is sampled instead of to the binary's size.
//
// Opening the table indexes the pc ranges of the FDEs (from .eh_frame_hdr's
// table or a walk of .eh_frame, and a walk of .debug_frame): no CFA program
// is run. FDEs whose ranges overlap form one group, compiled together with
// the whole table's sweep (cfi_table_rows.h) so that the row that wins a pc
// is the one the whole table keeps; a group is nearly always one FDE.
//
// Lookups are safe from several threads: a compiled group is published
// through an atomic pointer and never changes; compiling takes one mutex.

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "binary/cfi_table.h"
#include "binary/cfi_table_rows.h"
#include "binary/elf_binary.h"
#include "binary/fde_reader.h"
#include "common/elf_handle.h"

namespace swprof {

class LazyCfiTable {
 public:
  // The FDE index of `binary`'s .eh_frame and .debug_frame (per `options`;
  // reference_per_row does not apply). Never null and never throws: corrupt
  // entries are left out as CfiTable::compile leaves them out. `binary` must
  // outlive the table (ElfBinary::cfi_table() keeps the one of each binary).
  static std::shared_ptr<const LazyCfiTable> open(const ElfBinary& binary, const CfiCompileOptions& options = {});
  // The table of a binary without CFI (shared).
  static std::shared_ptr<const LazyCfiTable> empty_table();

  LazyCfiTable(const LazyCfiTable&) = delete;
  LazyCfiTable& operator=(const LazyCfiTable&) = delete;
  ~LazyCfiTable();

  // The rule for ELF virtual address `vaddr`, or nullptr when no row covers
  // it; compiles the FDEs covering it on first need. The rule lives as long
  // as the table.
  const CfiRule* lookup(uint64_t vaddr) const {
    const size_t group = group_at(vaddr);
    if (group == kNoGroup) return nullptr;
    const CompiledGroup* compiled = compiled_[group].load(std::memory_order_acquire);
    if (!compiled) [[unlikely]]
      compiled = compile(group);
    return compiled->lookup(vaddr);
  }

  // The start of the innermost FDE covering `vaddr` (the greatest FDE start
  // at or below it, where FDEs overlap); nullopt when no FDE covers it.
  std::optional<uint64_t> fde_start(uint64_t vaddr) const;

  // FDEs indexed, and of those, compiled so far.
  size_t fdes() const { return fdes_.size(); }
  size_t compiled_fdes() const { return compiled_fdes_.load(std::memory_order_relaxed); }
  bool empty() const { return fdes_.empty(); }
  // Approximate heap bytes held by the table (index and compiled groups).
  size_t memory_bytes() const;

 private:
  static constexpr size_t kNoGroup = ~size_t{0};

  // One FDE to compile: its range and program, its CIE, its place in the
  // order CfiTable::compile inserts rows (which decides overlaps).
  struct Fde {
    FdeRange range;
    const CieInfo* cie;
    uint32_t order;
    CfiSource source;
  };
  // The rows of one group: starts_[i] begins a range ending at
  // starts_[i + 1]; rules_[i] is nullptr for a gap and the end marker.
  struct CompiledGroup {
    std::vector<uint64_t> starts;
    std::vector<const CfiRule*> rules;
    const CfiRule* lookup(uint64_t vaddr) const;
  };

  LazyCfiTable() = default;
  void index(const ElfBinary& binary, const CfiCompileOptions& options);
  void add_fdes(const std::vector<FdeRange>& ranges, const SectionRef& section, CfiSource source);
  void group_fdes();
  size_t group_at(uint64_t vaddr) const;
  const CompiledGroup* compile(size_t group) const;
  uint32_t intern(const CfiRule& rule) const;

  // A private libelf handle over the binary's bytes (see CfiTable::compile);
  // the FDE programs and CIEs point into the image it reads.
  ElfPtr elf_;
  std::unique_ptr<FdeReader> reader_;  // owns the CIEs
  std::vector<Fde> fdes_;              // sorted by range.lo, then order
  // Group i is fdes_[group_first_[i], group_first_[i + 1]), covering
  // [group_lo_[i], group_hi_[i]).
  std::vector<uint64_t> group_lo_;
  std::vector<uint64_t> group_hi_;
  std::vector<uint32_t> group_first_;
  std::unique_ptr<std::atomic<const CompiledGroup*>[]> compiled_;

  mutable std::mutex compile_mutex_;  // guards what follows
  mutable std::deque<CompiledGroup> groups_;
  mutable std::deque<CfiRule> rules_;  // interned: a deque keeps every rule where it is
  mutable std::unordered_map<CfiRule, uint32_t, CfiRuleHash> rule_ids_;  // index in rules_
  mutable std::atomic<size_t> compiled_fdes_{0};
};

}  // namespace swprof
