#include "binary/lazy_cfi_table.h"

#include <elfutils/libdw.h>

#include <algorithm>
#include <tuple>

#include "binary/dwarf_handle.h"

namespace swprof {
namespace {

// Whether libdw reads .eh_frame as CFI: CfiTable::compile leaves out its
// FDEs when it does not. (.debug_frame needs no such check: CfiTable::compile
// asks libdw nothing about it.)
bool libdw_reads_eh_frame(Elf* elf) { return CfiPtr(dwarf_getcfi_elf(elf)) != nullptr; }

}  // namespace

std::shared_ptr<const LazyCfiTable> LazyCfiTable::open(const ElfBinary& binary, const CfiCompileOptions& options) {
  std::shared_ptr<LazyCfiTable> table(new LazyCfiTable());
  table->index(binary, options);
  return table;
}

std::shared_ptr<const LazyCfiTable> LazyCfiTable::empty_table() {
  static const std::shared_ptr<const LazyCfiTable> table(new LazyCfiTable());
  return table;
}

LazyCfiTable::~LazyCfiTable() = default;

// The FDEs CfiTable::compile would compile, in its order (cfi_table.cpp),
// then grouped.
void LazyCfiTable::index(const ElfBinary& binary, const CfiCompileOptions& options) {
  const Bytes file = binary.file_bytes();
  if (file.empty()) return;
  // elf_memory only reads the image for a native-endian file; it never writes it.
  elf_.reset(elf_memory(const_cast<char*>(reinterpret_cast<const char*>(file.data())), file.size()));
  reader_ = std::make_unique<FdeReader>(elf_.get());
  if (!reader_->ok()) return;
  auto eh_frame = find_section(elf_.get(), ".eh_frame");
  if (eh_frame && libdw_reads_eh_frame(elf_.get())) {
    std::vector<FdeRange> ranges;
    if (options.use_eh_frame_hdr) ranges = reader_->eh_frame_fdes_from_hdr(*eh_frame);
    if (ranges.empty()) ranges = reader_->walk_fdes(*eh_frame, true);
    add_fdes(ranges, *eh_frame, kCfiFromEhFrame);
  }
  auto debug_frame = options.use_debug_frame ? find_section(elf_.get(), ".debug_frame") : std::nullopt;
  if (debug_frame)
    add_fdes(reader_->walk_fdes(*debug_frame, false), *debug_frame, kCfiFromDebugFrame);
  group_fdes();
}

void LazyCfiTable::add_fdes(const std::vector<FdeRange>& ranges, const SectionRef& section, CfiSource source) {
  const bool eh_frame = source == kCfiFromEhFrame;
  fdes_.reserve(fdes_.size() + ranges.size());
  for (const FdeRange& range : ranges) {
    const CieInfo* cie = reader_->cie_info(section, eh_frame, range.cie_offset);
    if (!cie || !cie->initial) continue;  // no rows (CfiTable counts it as skipped)
    fdes_.push_back(Fde{range, cie, static_cast<uint32_t>(fdes_.size()), source});
  }
}

// Sorts the FDEs by start and groups those whose ranges overlap: rows of
// different groups never overlap, so each group's sweep gives the rules the
// sweep of the whole table gives there.
void LazyCfiTable::group_fdes() {
  // From .eh_frame_hdr's table alone they are in order already (its
  // entries are sorted by start): one check instead of a sort, which was a
  // quarter of indexing a g++ compile's binaries (about 2 ms of the first
  // pass over its recording).
  const auto before = [](const Fde& a, const Fde& b) { return std::tie(a.range.lo, a.order) < std::tie(b.range.lo, b.order); };
  if (!std::is_sorted(fdes_.begin(), fdes_.end(), before)) std::sort(fdes_.begin(), fdes_.end(), before);
  for (size_t i = 0; i < fdes_.size(); ++i) {
    const FdeRange& r = fdes_[i].range;
    if (group_first_.empty() || r.lo >= group_hi_.back()) {
      group_first_.push_back(static_cast<uint32_t>(i));
      group_lo_.push_back(r.lo);
      group_hi_.push_back(r.hi);
    } else {
      group_hi_.back() = std::max(group_hi_.back(), r.hi);
    }
  }
  group_first_.push_back(static_cast<uint32_t>(fdes_.size()));
  compiled_ = std::make_unique<std::atomic<const CompiledGroup*>[]>(group_lo_.size());
  fdes_.shrink_to_fit();
}

size_t LazyCfiTable::group_at(uint64_t vaddr) const {
  // Last group start <= vaddr.
  auto it = std::upper_bound(group_lo_.begin(), group_lo_.end(), vaddr);
  if (it == group_lo_.begin()) return kNoGroup;
  const size_t group = static_cast<size_t>(it - group_lo_.begin()) - 1;
  return vaddr < group_hi_[group] ? group : kNoGroup;
}

std::optional<uint64_t> LazyCfiTable::fde_start(uint64_t vaddr) const {
  const size_t group = group_at(vaddr);
  if (group == kNoGroup) return std::nullopt;
  // The group's FDEs are sorted by start, the first at the group's start.
  const auto first = fdes_.begin() + group_first_[group];
  const auto last = fdes_.begin() + group_first_[group + 1];
  const auto after = std::upper_bound(first, last, vaddr, [](uint64_t v, const Fde& f) { return v < f.range.lo; });
  return std::prev(after)->range.lo;
}

const LazyCfiTable::CompiledGroup* LazyCfiTable::compile(size_t group) const {
  std::lock_guard lock(compile_mutex_);
  if (const CompiledGroup* done = compiled_[group].load(std::memory_order_acquire)) return done;
  std::vector<const Fde*> members;
  for (uint32_t i = group_first_[group]; i < group_first_[group + 1]; ++i) members.push_back(&fdes_[i]);
  // The whole table inserts rows in FDE order.
  std::sort(members.begin(), members.end(), [](const Fde* a, const Fde* b) { return a->order < b->order; });
  std::vector<CfiRawRow> rows;
  for (const Fde* fde : members)
    append_fde_rows(*fde->cie, fde->range, fde->source, [this](const CfiRule& rule) { return intern(rule); }, rows);
  CompiledGroup& compiled = groups_.emplace_back();
  sweep_cfi_rows(rows, [&](uint64_t start, uint32_t rule) {
    compiled.starts.push_back(start);
    compiled.rules.push_back(rule == kNoCfiRule ? nullptr : &rules_[rule]);
  });
  compiled.starts.shrink_to_fit();
  compiled.rules.shrink_to_fit();
  compiled_fdes_.fetch_add(members.size(), std::memory_order_relaxed);
  compiled_[group].store(&compiled, std::memory_order_release);
  return &compiled;
}

uint32_t LazyCfiTable::intern(const CfiRule& rule) const {
  auto [it, inserted] = rule_ids_.try_emplace(rule, static_cast<uint32_t>(rules_.size()));
  if (inserted) rules_.push_back(rule);
  return it->second;
}

const CfiRule* LazyCfiTable::CompiledGroup::lookup(uint64_t vaddr) const {
  auto it = std::upper_bound(starts.begin(), starts.end(), vaddr);
  if (it == starts.begin()) return nullptr;
  return rules[static_cast<size_t>(it - starts.begin()) - 1];
}

size_t LazyCfiTable::memory_bytes() const {
  std::lock_guard lock(compile_mutex_);
  size_t bytes = fdes_.capacity() * sizeof(Fde) + group_lo_.capacity() * sizeof(uint64_t) * 2 +
                 group_first_.capacity() * sizeof(uint32_t) + group_lo_.size() * sizeof(std::atomic<const CompiledGroup*>) +
                 rules_.size() * sizeof(CfiRule);
  for (const CompiledGroup& g : groups_)
    bytes += sizeof(CompiledGroup) + g.starts.capacity() * sizeof(uint64_t) + g.rules.capacity() * sizeof(const CfiRule*);
  return bytes;
}

}  // namespace swprof
