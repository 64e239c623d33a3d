#include "binary/cfi_table_rows.h"

#include <algorithm>
#include <tuple>

#include "binary/cfa_program.h"
#include "binary/cfi_rule_conversion.h"

namespace swprof {

FdeRowsResult append_fde_rows(const CieInfo& cie, const FdeRange& fde, CfiSource source,
                              const CfiInternFunction& intern, std::vector<CfiRawRow>& out) {
  FdeRowsResult result;
  if (!cie.initial) return result;
  result.complete = run_cfa_program(cie.program, *cie.initial, fde.instructions, fde.lo, fde.hi,
                                    [&](uint64_t start, uint64_t end, const CfaState& state) {
                                      ++result.interpreted;
                                      if (auto rule = rule_from_cfa_state(state, cie.ra_column, cie.signal)) {
                                        out.push_back({start, end, intern(*rule), source});
                                        result.any = true;
                                      } else {
                                        ++result.skipped_rows;
                                      }
                                    });
  return result;
}

size_t sweep_cfi_rows(std::vector<CfiRawRow>& rows, const std::function<void(uint64_t start, uint32_t rule)>& on_range) {
  std::stable_sort(rows.begin(), rows.end(), [](const CfiRawRow& a, const CfiRawRow& b) {
    return std::tie(a.start, a.source) < std::tie(b.start, b.source);
  });
  size_t kept = 0;
  uint64_t covered = 0;  // end of the last row kept; a later row starting below it is trimmed
  uint32_t last_rule = kNoCfiRule;
  for (CfiRawRow row : rows) {
    if (kept > 0 && row.start < covered) row.start = covered;
    if (row.start >= row.end) continue;
    if (kept > 0 && row.start == covered && last_rule == row.rule) {
      covered = row.end;  // adjacent and identical: extend the previous row
      continue;
    }
    if (kept > 0 && row.start > covered) on_range(covered, kNoCfiRule);  // a gap between FDEs
    on_range(row.start, row.rule);
    last_rule = row.rule;
    covered = row.end;
    ++kept;
  }
  if (kept > 0) on_range(covered, kNoCfiRule);
  return kept;
}

}  // namespace swprof
