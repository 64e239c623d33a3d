#pragma once
// The steps a CFI table is made of, shared by the table compiled whole
// (cfi_table.h) and the one compiled an FDE at a time (lazy_cfi_table.h),
// so that both give the same rule at every pc:
//   1. the rows of one FDE: its program interpreted once (cfa_program.h),
//      each row converted into a CfiRule (cfi_rule_conversion.h);
//   2. the sweep: rows sorted by (start, source), each keeping only the pcs
//      no row before it covers, adjacent rows with the same rule merged.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "binary/cfi_rule.h"
#include "binary/fde_reader.h"

namespace swprof {

inline constexpr uint32_t kNoCfiRule = 0xffffffffu;

// Where a row comes from; the lower wins where rows overlap.
enum CfiSource : uint8_t { kCfiFromEhFrame = 0, kCfiFromDebugFrame = 1 };

struct CfiRawRow {
  uint64_t start, end;
  uint32_t rule;  // an id given by the caller's intern function
  uint8_t source;
};

// What compiling one FDE gave.
struct FdeRowsResult {
  size_t interpreted = 0;   // rows the interpreter produced
  size_t skipped_rows = 0;  // rows CfiRule cannot express
  bool any = false;         // some row was kept
  bool complete = false;    // the program ran to its end (false: a corrupt FDE or CIE)
};

// A hash of every field of a rule, for interning rules.
struct CfiRuleHash {
  size_t operator()(const CfiRule& r) const {
    uint64_t h = static_cast<uint32_t>(r.cfa_offset);
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ull + (h >> 29); };
    mix(static_cast<uint64_t>(r.cfa) | uint64_t{r.cfa_reg} << 8 | uint64_t{r.plt_threshold} << 16 | uint64_t{r.flags} << 24);
    for (int i = 0; i < kSavedSlotCount; ++i)
      mix(static_cast<uint64_t>(r.saved[i]) | static_cast<uint64_t>(static_cast<uint16_t>(r.saved_offset[i])) << 8);
    return static_cast<size_t>(h);
  }
};

using CfiInternFunction = std::function<uint32_t(const CfiRule&)>;

// Appends the rows of `fde` (whose CIE is `cie`) to `out`, each rule given
// an id by `intern`. A CIE without valid initial instructions gives none.
FdeRowsResult append_fde_rows(const CieInfo& cie, const FdeRange& fde, CfiSource source,
                              const CfiInternFunction& intern, std::vector<CfiRawRow>& out);

// The sweep (step 2 above) over `rows`, which it sorts: calls
// on_range(start, rule) for each range of the result in address order, a
// range running to the next one's start; rule is kNoCfiRule for a gap between
// FDEs and for the end marker after the last row. Returns the number of rows
// (ranges with a rule).
size_t sweep_cfi_rows(std::vector<CfiRawRow>& rows, const std::function<void(uint64_t start, uint32_t rule)>& on_range);

}  // namespace swprof
