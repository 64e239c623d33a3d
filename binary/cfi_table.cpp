#include "binary/cfi_table.h"

#include <elfutils/libdw.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "binary/cfa_program.h"
#include "binary/cfi_rule_conversion.h"
#include "binary/fde_reader.h"
#include "common/elf_handle.h"

namespace swprof {
namespace {

struct CfiDeleter {
  void operator()(Dwarf_CFI* c) const { dwarf_cfi_end(c); }
};
struct DwarfDeleter {
  void operator()(Dwarf* d) const { dwarf_end(d); }
};
struct FrameDeleter {
  void operator()(Dwarf_Frame* f) const { std::free(f); }  // dwarf_cfi_addrframe's frame is malloc'd
};
using CfiPtr = std::unique_ptr<Dwarf_CFI, CfiDeleter>;
using DwarfPtr = std::unique_ptr<Dwarf, DwarfDeleter>;
using FramePtr = std::unique_ptr<Dwarf_Frame, FrameDeleter>;

struct RuleHash {
  size_t operator()(const CfiRule& r) const {
    uint64_t h = static_cast<uint32_t>(r.cfa_offset);
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ull + (h >> 29); };
    mix(static_cast<uint64_t>(r.cfa) | uint64_t{r.cfa_reg} << 8 | uint64_t{r.plt_threshold} << 16 | uint64_t{r.flags} << 24);
    for (int i = 0; i < kSavedSlotCount; ++i)
      mix(static_cast<uint64_t>(r.saved[i]) | static_cast<uint64_t>(static_cast<uint16_t>(r.saved_offset[i])) << 8);
    return static_cast<size_t>(h);
  }
};

}  // namespace

// Collects rows from the CFI sources, then sorts, de-overlaps and merges them.
class CfiTableBuilder {
 public:
  explicit CfiTableBuilder(const ElfBinary& binary, const CfiCompileOptions& options)
      : binary_(binary), options_(options) {}

  std::shared_ptr<const CfiTable> build();

 private:
  struct RawRow {
    uint64_t start, end;
    uint32_t rule;
    uint8_t source;  // lower wins where rows overlap
  };
  enum Source : uint8_t { kEhFrame = 0, kDebugFrame = 1 };

  void compile_eh_frame();
  void compile_debug_frame();
  void compile_fde(const SectionRef& section, bool eh_frame, const FdeRange& range);
  void compile_fde_per_row(Dwarf_CFI* cfi, FdeRange range, Source source);
  uint32_t intern(const CfiRule& rule);
  std::shared_ptr<const CfiTable> finish();

  const ElfBinary& binary_;
  CfiCompileOptions options_;
  // A private libelf handle over the binary's bytes: libelf is not
  // thread-safe per handle, and the binary's own handle may be in use by
  // other threads (symbolization) while this table compiles.
  ElfPtr elf_;
  std::optional<FdeReader> fdes_;
  std::vector<RawRow> rows_;
  std::vector<CfiRule> rules_;
  std::unordered_map<CfiRule, uint32_t, RuleHash> rule_ids_;
  CfiTableStats stats_;
};

std::shared_ptr<const CfiTable> CfiTable::compile(const ElfBinary& binary, const CfiCompileOptions& options) {
  return CfiTableBuilder(binary, options).build();
}

std::shared_ptr<const CfiTable> CfiTable::empty_table() {
  static const std::shared_ptr<const CfiTable> table(new CfiTable());
  return table;
}

std::shared_ptr<const CfiTable> CfiTableBuilder::build() {
  Bytes file = binary_.file_bytes();
  if (!file.empty()) {
    // elf_memory only reads the image for a native-endian file; it never writes it.
    elf_.reset(elf_memory(const_cast<char*>(reinterpret_cast<const char*>(file.data())), file.size()));
  }
  fdes_.emplace(elf_.get());
  if (fdes_->ok()) {
    compile_eh_frame();
    if (options_.use_debug_frame) compile_debug_frame();
  }
  return finish();
}

void CfiTableBuilder::compile_eh_frame() {
  auto eh_frame = find_section(elf_.get(), ".eh_frame");
  if (!eh_frame) return;
  CfiPtr cfi(dwarf_getcfi_elf(elf_.get()));
  if (!cfi) return;
  std::vector<FdeRange> fdes;
  if (options_.use_eh_frame_hdr) fdes = fdes_->eh_frame_fdes_from_hdr(*eh_frame);
  if (fdes.empty()) fdes = fdes_->walk_fdes(*eh_frame, true);
  for (const FdeRange& fde : fdes) {
    if (options_.reference_per_row) compile_fde_per_row(cfi.get(), fde, kEhFrame);
    else compile_fde(*eh_frame, true, fde);
  }
}

void CfiTableBuilder::compile_debug_frame() {
  auto debug_frame = find_section(elf_.get(), ".debug_frame");
  if (!debug_frame) return;
  DwarfPtr dwarf(dwarf_begin_elf(elf_.get(), DWARF_C_READ, nullptr));
  if (!dwarf) return;
  Dwarf_CFI* cfi = dwarf_getcfi(dwarf.get());  // owned by `dwarf`
  if (!cfi) return;
  for (const FdeRange& fde : fdes_->walk_fdes(*debug_frame, false)) {
    if (options_.reference_per_row) compile_fde_per_row(cfi, fde, kDebugFrame);
    else compile_fde(*debug_frame, false, fde);
  }
}

// Rows of one FDE, its program interpreted once from start to end
// (cfa_program.h).
void CfiTableBuilder::compile_fde(const SectionRef& section, bool eh_frame, const FdeRange& range) {
  const CieInfo* cie = fdes_->cie_info(section, eh_frame, range.cie_offset);
  if (!cie || !cie->initial) {
    ++stats_.skipped_fdes;
    return;
  }
  const uint8_t source = eh_frame ? kEhFrame : kDebugFrame;
  bool any = false;
  const bool complete = run_cfa_program(cie->program, *cie->initial, range.instructions, range.lo, range.hi,
                                        [&](uint64_t start, uint64_t end, const CfaState& state) {
                                          ++stats_.interpreted;
                                          if (auto rule = rule_from_cfa_state(state, cie->ra_column, cie->signal)) {
                                            rows_.push_back({start, end, intern(*rule), source});
                                            any = true;
                                          } else {
                                            ++stats_.skipped_rows;
                                          }
                                        });
  if (!complete) ++stats_.skipped_fdes;
  if (any) ++stats_.fdes;
}

// Rows of one FDE the way libdw gives them: it interprets the CFA program up
// to `addr` and reports the row holding it as [start, end); the next row
// starts at `end`. Quadratic in the rows of an FDE: the reference for tests.
void CfiTableBuilder::compile_fde_per_row(Dwarf_CFI* cfi, FdeRange range, Source source) {
  bool any = false;
  uint64_t addr = range.lo;
  while (addr < range.hi) {
    Dwarf_Frame* raw = nullptr;
    const int rc = dwarf_cfi_addrframe(cfi, addr, &raw);
    FramePtr frame(raw);
    if (rc != 0 || !frame) {
      ++stats_.skipped_fdes;
      break;
    }
    Dwarf_Addr start = 0, end = 0;
    bool signal = false;
    const int ra_column = dwarf_frame_info(frame.get(), &start, &end, &signal);
    if (ra_column < 0 || start > addr || end <= addr) {
      ++stats_.skipped_fdes;  // a row that does not hold addr: corrupt, and no way to the next row
      break;
    }
    const uint64_t row_end = std::min<uint64_t>(end, range.hi);
    ++stats_.interpreted;
    if (auto rule = rule_from_libdw_frame(frame.get(), static_cast<uint64_t>(ra_column), signal)) {
      rows_.push_back({addr, row_end, intern(*rule), source});
      any = true;
    } else {
      ++stats_.skipped_rows;
    }
    addr = row_end;
  }
  if (any) ++stats_.fdes;
}

uint32_t CfiTableBuilder::intern(const CfiRule& rule) {
  auto [it, inserted] = rule_ids_.try_emplace(rule, static_cast<uint32_t>(rules_.size()));
  if (inserted) rules_.push_back(rule);
  return it->second;
}

std::shared_ptr<const CfiTable> CfiTableBuilder::finish() {
  std::stable_sort(rows_.begin(), rows_.end(), [](const RawRow& a, const RawRow& b) {
    return std::tie(a.start, a.source) < std::tie(b.start, b.source);
  });
  std::shared_ptr<CfiTable> table(new CfiTable());
  table->starts_.reserve(rows_.size() + 1);
  table->rule_index_.reserve(rows_.size() + 1);
  uint64_t covered = 0;  // end of the last row kept; a later row starting below it is trimmed
  bool have_row = false;
  for (RawRow row : rows_) {
    if (have_row && row.start < covered) row.start = covered;
    if (row.start >= row.end) continue;
    auto& starts = table->starts_;
    auto& index = table->rule_index_;
    if (have_row && row.start == covered && index.back() == row.rule) {
      covered = row.end;  // adjacent and identical: extend the previous row
      continue;
    }
    if (have_row && row.start > covered) {
      starts.push_back(covered);  // a gap between FDEs
      index.push_back(CfiTable::kNoRule);
    }
    starts.push_back(row.start);
    index.push_back(row.rule);
    covered = row.end;
    have_row = true;
    ++stats_.rows;
  }
  if (have_row) {
    table->starts_.push_back(covered);
    table->rule_index_.push_back(CfiTable::kNoRule);
  }
  table->starts_.shrink_to_fit();
  table->rule_index_.shrink_to_fit();
  table->rules_ = std::move(rules_);
  stats_.rules = table->rules_.size();
  if (fdes_) stats_.skipped_fdes += fdes_->skipped_fdes();
  table->stats_ = stats_;
  return table;
}

std::optional<CfiTable::Row> CfiTable::row_at(uint64_t vaddr) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), vaddr);
  if (it == starts_.begin() || it == starts_.end()) return std::nullopt;
  const size_t i = static_cast<size_t>(it - starts_.begin()) - 1;
  if (rule_index_[i] == kNoRule) return std::nullopt;
  return Row{starts_[i], starts_[i + 1], &rules_[rule_index_[i]]};
}

std::vector<CfiTable::Row> CfiTable::rows() const {
  std::vector<Row> out;
  for (size_t i = 0; i + 1 < starts_.size(); ++i)
    if (rule_index_[i] != kNoRule) out.push_back(Row{starts_[i], starts_[i + 1], &rules_[rule_index_[i]]});
  return out;
}

size_t CfiTable::memory_bytes() const {
  return starts_.capacity() * sizeof(uint64_t) + rule_index_.capacity() * sizeof(uint32_t) +
         rules_.capacity() * sizeof(CfiRule);
}

}  // namespace swprof
