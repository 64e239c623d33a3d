#include "binary/cfi_table.h"

#include <elfutils/libdw.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <unordered_map>

#include "binary/cfi_rule_conversion.h"
#include "binary/cfi_table_rows.h"
#include "binary/debug_frame_cfi.h"
#include "binary/dwarf_handle.h"
#include "binary/fde_reader.h"
#include "common/elf_handle.h"

namespace swprof {
namespace {

struct FrameDeleter {
  void operator()(Dwarf_Frame* f) const { std::free(f); }  // dwarf_cfi_addrframe's frame is malloc'd
};
using FramePtr = std::unique_ptr<Dwarf_Frame, FrameDeleter>;

}  // namespace

// Collects rows from the CFI sources, then sorts, de-overlaps and merges them.
class CfiTableBuilder {
 public:
  explicit CfiTableBuilder(const ElfBinary& binary, const CfiCompileOptions& options)
      : binary_(binary), options_(options) {}

  std::shared_ptr<const CfiTable> build();

 private:
  void compile_eh_frame();
  void compile_debug_frame();
  void compile_fde(const SectionRef& section, bool eh_frame, const FdeRange& range);
  void compile_fde_per_row(Dwarf_CFI* cfi, FdeRange range, CfiSource source);
  uint32_t intern(const CfiRule& rule);
  std::shared_ptr<const CfiTable> finish();

  const ElfBinary& binary_;
  CfiCompileOptions options_;
  // A private libelf handle over the binary's bytes: libelf is not
  // thread-safe per handle, and the binary's own handle may be in use by
  // other threads (symbolization) while this table compiles.
  ElfPtr elf_;
  std::optional<FdeReader> fdes_;
  std::vector<CfiRawRow> rows_;
  std::vector<CfiRule> rules_;
  std::unordered_map<CfiRule, uint32_t, CfiRuleHash> rule_ids_;
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
    if (options_.reference_per_row) compile_fde_per_row(cfi.get(), fde, kCfiFromEhFrame);
    else compile_fde(*eh_frame, true, fde);
  }
}

// FdeReader reads .debug_frame itself (dwarf_next_cfi needs no Dwarf
// handle); only the reference asks libdw, over an image of the section alone
// (debug_frame_cfi.h), never over the binary's whole DWARF.
void CfiTableBuilder::compile_debug_frame() {
  auto debug_frame = find_section(elf_.get(), ".debug_frame");
  if (!debug_frame) return;
  std::unique_ptr<DebugFrameCfi> reference;
  if (options_.reference_per_row) {
    reference = DebugFrameCfi::open(elf_.get(), *debug_frame);
    if (!reference) return;
  }
  for (const FdeRange& fde : fdes_->walk_fdes(*debug_frame, false)) {
    if (reference) compile_fde_per_row(reference->cfi(), fde, kCfiFromDebugFrame);
    else compile_fde(*debug_frame, false, fde);
  }
}

// Rows of one FDE, its program interpreted once from start to end
// (cfi_table_rows.h).
void CfiTableBuilder::compile_fde(const SectionRef& section, bool eh_frame, const FdeRange& range) {
  const CieInfo* cie = fdes_->cie_info(section, eh_frame, range.cie_offset);
  if (!cie || !cie->initial) {
    ++stats_.skipped_fdes;
    return;
  }
  const FdeRowsResult result = append_fde_rows(*cie, range, eh_frame ? kCfiFromEhFrame : kCfiFromDebugFrame,
                                               [this](const CfiRule& rule) { return intern(rule); }, rows_);
  stats_.interpreted += result.interpreted;
  stats_.skipped_rows += result.skipped_rows;
  if (!result.complete) ++stats_.skipped_fdes;
  if (result.any) ++stats_.fdes;
}

// Rows of one FDE the way libdw gives them: it interprets the CFA program up
// to `addr` and reports the row holding it as [start, end); the next row
// starts at `end`. Quadratic in the rows of an FDE: the reference for tests.
void CfiTableBuilder::compile_fde_per_row(Dwarf_CFI* cfi, FdeRange range, CfiSource source) {
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
  std::shared_ptr<CfiTable> table(new CfiTable());
  table->starts_.reserve(rows_.size() + 1);
  table->rule_index_.reserve(rows_.size() + 1);
  stats_.rows = sweep_cfi_rows(rows_, [&table](uint64_t start, uint32_t rule) {
    table->starts_.push_back(start);
    table->rule_index_.push_back(rule);
  });
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
