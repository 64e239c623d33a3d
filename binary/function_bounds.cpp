#include "binary/function_bounds.h"

#include <elf.h>

#include <algorithm>

#include "binary/elf_binary.h"
#include "binary/go_pclntab.h"
#include "binary/lazy_cfi_table.h"
#include "binary/x86_decoder.h"

namespace swprof {
namespace {

std::optional<FunctionBounds> sized_symbol(const ElfBinary& binary, uint64_t vaddr) {
  const FunctionSymbol* f = binary.function_at(vaddr);
  if (!f || f->size == 0) return std::nullopt;
  return FunctionBounds{f->start, f->start + f->size, f->name, 0};
}

std::optional<FunctionBounds> go_function(const ElfBinary& binary, uint64_t vaddr) {
  const GoPclntab* table = binary.go_pclntab();
  if (!table) return std::nullopt;
  const std::optional<GoPclntab::Func> f = table->func_at(vaddr);
  if (!f) return std::nullopt;
  return FunctionBounds{f->entry, f->end, table->name(*f), 0};
}

std::optional<FunctionBounds> plt_stub(const ElfBinary& binary, uint64_t vaddr) {
  const PltEntry* e = binary.plt_entries().at(vaddr);
  if (!e) return std::nullopt;
  return FunctionBounds{e->start, e->start + e->size, e->name, 0};
}

// A symbol of size 0 (hand-written assembly) runs to the next symbol, within
// its executable segment.
std::optional<FunctionBounds> unsized_symbol(const ElfBinary& binary, uint64_t vaddr) {
  const std::vector<FunctionSymbol>& fns = binary.functions();
  auto next = std::upper_bound(fns.begin(), fns.end(), vaddr, [](uint64_t v, const FunctionSymbol& f) { return v < f.start; });
  if (next == fns.begin()) return std::nullopt;
  const FunctionSymbol& f = *(next - 1);
  if (f.size != 0) return std::nullopt;
  for (const auto& [lo, hi] : binary.executable_ranges()) {
    if (f.start < lo || f.start >= hi || vaddr >= hi) continue;
    const uint64_t end = next != fns.end() ? std::min(next->start, hi) : hi;
    return FunctionBounds{f.start, end, f.name, 0};
  }
  return std::nullopt;
}

// The executable segment holding vaddr: discovery's starts are there.
std::optional<std::pair<uint64_t, uint64_t>> executable_range(const ElfBinary& binary, uint64_t vaddr) {
  for (const auto& range : binary.executable_ranges())
    if (vaddr >= range.first && vaddr < range.second) return range;
  return std::nullopt;
}

// `.init` and `.fini` each hold one function (crti's _init and _fini), a
// start discovery seeds at the section's start: known without discovery.
// (Within vaddr's executable segment, as discovery's functions are.)
std::optional<FunctionBounds> init_fini_function(const ElfBinary& binary, uint64_t vaddr) {
  const auto range = executable_range(binary, vaddr);
  if (!range) return std::nullopt;
  for (const char* name : {".init", ".fini"}) {
    const std::optional<ElfSection> s = binary.section(name);
    if (s && s->type == SHT_PROGBITS && vaddr >= s->addr && vaddr - s->addr < s->data.size() && s->addr >= range->first)
      return FunctionBounds{s->addr, std::min(s->addr + s->data.size(), range->second), {}, kFromInitArray};
  }
  return std::nullopt;
}

std::optional<FunctionBounds> discovered(const ElfBinary& binary, uint64_t vaddr) {
  const std::optional<DiscoveredFunction> d = binary.function_starts().at(vaddr);
  if (!d) return std::nullopt;
  return FunctionBounds{d->start, d->end, {}, d->sources};
}

// The bounds from the sources that need no discovery.
std::optional<FunctionBounds> known_bounds(const ElfBinary& binary, uint64_t vaddr) {
  if (auto b = sized_symbol(binary, vaddr)) return b;
  if (auto b = go_function(binary, vaddr)) return b;
  if (auto b = plt_stub(binary, vaddr)) return b;
  if (auto b = unsized_symbol(binary, vaddr)) return b;
  return init_fini_function(binary, vaddr);
}

// The start for vaddr inside an FDE: the greatest at or below vaddr, in
// vaddr's segment, of the FDE's start, symbols and the entry point. Where the
// FDE begins at a function's entry, that is discovery's start (its seeds);
// where it begins inside a frame (a .cold part, run in its parent's frame),
// it is the part's own start, where discovery would have guessed from the
// jumps and calls around it, at the price of a whole binary's discovery (a
// compiler's 20 MB cc1: 48 ms) for one name.
std::optional<uint64_t> start_in_fde(const ElfBinary& binary, uint64_t vaddr) {
  const LazyCfiTable& cfi = binary.cfi_table();
  const std::optional<uint64_t> fde = cfi.fde_start(vaddr);
  const auto range = fde ? executable_range(binary, vaddr) : std::nullopt;
  if (!range || *fde < range->first) return std::nullopt;
  uint64_t start = *fde;
  const std::vector<FunctionSymbol>& fns = binary.functions();
  auto next = std::upper_bound(fns.begin(), fns.end(), vaddr, [](uint64_t v, const FunctionSymbol& f) { return v < f.start; });
  if (next != fns.begin()) start = std::max(start, std::prev(next)->start);
  if (binary.entry() <= vaddr) start = std::max(start, binary.entry());
  return start;
}

constexpr size_t kEntryCodeBytes = 256;
constexpr int kEntryCodeInsns = 64;

bool function_begins(const ElfBinary& binary, uint64_t at) {
  if (!binary.functions().empty()) {
    const FunctionSymbol* f = binary.function_at(at);
    return f && f->start == at;
  }
  if (const LazyCfiTable& cfi = binary.cfi_table(); !cfi.empty()) return cfi.fde_start(at) == at;
  const std::optional<DiscoveredFunction> d = binary.function_starts().at(at);
  return d && d->start == at;
}

// The entry point for vaddr in the entry code: code without an FDE (ld.so's
// _start and _dl_start_user), which every program's first samples land in.
std::optional<uint64_t> start_in_entry_code(const ElfBinary& binary, uint64_t vaddr) {
  const uint64_t entry = binary.entry();
  if (entry == 0 || vaddr < entry || vaddr - entry >= kEntryCodeBytes) return std::nullopt;
  X86Decoder decoder;
  const auto code = entry_code(binary, decoder);
  if (!code || vaddr >= code->second) return std::nullopt;
  return entry;
}

}  // namespace

std::optional<std::pair<uint64_t, uint64_t>> entry_code(const ElfBinary& binary, X86Decoder& decoder) {
  const uint64_t entry = binary.entry();
  if (entry == 0 || !decoder.ok()) return std::nullopt;
  const Bytes code = binary.code_at(entry, kEntryCodeBytes);
  uint64_t at = entry;
  for (int i = 0; i < kEntryCodeInsns; ++i) {
    if (at != entry && function_begins(binary, at)) break;
    const X86Insn insn = decoder.decode(code, entry, at);
    if (insn.op == X86Op::kInvalid) break;
    at = insn.end();
    if (!insn.falls_through()) break;
  }
  if (at == entry) return std::nullopt;
  return std::make_pair(entry, at);
}

std::optional<FunctionBounds> function_bounds(const ElfBinary& binary, uint64_t vaddr) {
  if (auto b = known_bounds(binary, vaddr)) return b;
  return discovered(binary, vaddr);
}

std::optional<uint64_t> function_start(const ElfBinary& binary, uint64_t vaddr) {
  if (auto b = known_bounds(binary, vaddr)) return b->start;
  if (auto start = start_in_fde(binary, vaddr)) return start;
  if (auto start = start_in_entry_code(binary, vaddr)) return start;
  if (auto b = discovered(binary, vaddr)) return b->start;
  return std::nullopt;
}

}  // namespace swprof
