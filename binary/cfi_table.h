#pragma once
// DWARF call frame information compiled once per binary into a sorted table
// of compact rules (the eh_elf idea: CFA programs are interpreted here, at
// compile time, and never again per sample).
//
// Sources: .eh_frame (LSB 5.0 "Exception Frames", FDEs enumerated through
// .eh_frame_hdr's sorted table when present) and .debug_frame (DWARF 5
// §6.4). Each FDE's program is interpreted once into rows (one per
// DW_CFA_advance_loc; cfa_program.h, with libdw's semantics); each row
// becomes a CfiRule when its CFA and register rules are of a kind the
// stepper can apply, and is counted as skipped otherwise.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "binary/cfi_rule.h"
#include "binary/cfi_table_rows.h"
#include "binary/eh_frame_hdr.h"
#include "binary/elf_binary.h"

namespace swprof {

struct CfiTableStats {
  size_t fdes = 0;           // FDEs whose rows were compiled (wholly or in part)
  size_t rows = 0;           // table rows, after merging adjacent identical rules
  size_t interpreted = 0;    // rows the CFI interpreter produced (before merging)
  size_t rules = 0;          // distinct CfiRule values
  size_t skipped_rows = 0;   // rows with a rule kind CfiRule cannot express (e.g. other DWARF expressions)
  size_t skipped_fdes = 0;   // FDEs (or their tails) left out: corrupt entries, unknown pointer encodings
  size_t skipped() const { return skipped_rows + skipped_fdes; }
};

struct CfiCompileOptions {
  bool use_eh_frame_hdr = true;  // false: enumerate .eh_frame FDEs by walking the section
  bool use_debug_frame = true;
  // Ask libdw for the row at each address instead of interpreting each FDE
  // once: the same table, in time quadratic in an FDE's rows. A reference
  // for tests.
  bool reference_per_row = false;
};

class CfiTable {
 public:
  // Rows of `binary`'s .eh_frame and .debug_frame (where both cover a pc,
  // .eh_frame wins). Never null and never throws: corrupt or unsupported CFI
  // is skipped and counted in stats(); a binary without CFI gives an empty table.
  static std::shared_ptr<const CfiTable> compile(const ElfBinary& binary, const CfiCompileOptions& options = {});
  // The table of a binary without CFI (shared).
  static std::shared_ptr<const CfiTable> empty_table();

  // The rule for ELF virtual address `vaddr`, or nullptr when no row covers it.
  const CfiRule* lookup(uint64_t vaddr) const {
    // Last row start <= vaddr: a branch-light binary search over starts_.
    const uint64_t* base = starts_.data();
    size_t n = starts_.size();
    if (n == 0 || vaddr < base[0]) return nullptr;
    while (n > 1) {
      const size_t half = n / 2;
      base = base[half] <= vaddr ? base + half : base;
      n -= half;
    }
    const uint32_t index = rule_index_[static_cast<size_t>(base - starts_.data())];
    return index == kNoRule ? nullptr : &rules_[index];
  }

  struct Row {
    uint64_t start = 0;
    uint64_t end = 0;
    const CfiRule* rule = nullptr;
  };
  // The row covering vaddr, with its [start, end) range.
  std::optional<Row> row_at(uint64_t vaddr) const;
  // Every row, by address (gaps between FDEs have none).
  std::vector<Row> rows() const;

  const CfiTableStats& stats() const { return stats_; }
  bool empty() const { return stats_.rows == 0; }
  // Approximate heap bytes held by the table.
  size_t memory_bytes() const;

 private:
  friend class CfiTableBuilder;
  static constexpr uint32_t kNoRule = kNoCfiRule;

  CfiTable() = default;

  // starts_[i] begins a range that ends at starts_[i + 1] (the last entry is
  // always a kNoRule end marker). rule_index_[i] indexes rules_, or is
  // kNoRule for a gap between FDEs.
  std::vector<uint64_t> starts_;
  std::vector<uint32_t> rule_index_;
  std::vector<CfiRule> rules_;
  CfiTableStats stats_;
};

}  // namespace swprof

// The per-binary cache of tables, for the code that reaches it through this
// header (it includes this one back: either may be included first).
#include "binary/cfi_table_cache.h"
