#include "binary/function_bounds.h"

#include <algorithm>

#include "binary/elf_binary.h"
#include "binary/go_pclntab.h"

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

std::optional<FunctionBounds> discovered(const ElfBinary& binary, uint64_t vaddr) {
  const std::optional<DiscoveredFunction> d = binary.function_starts().at(vaddr);
  if (!d) return std::nullopt;
  return FunctionBounds{d->start, d->end, {}, d->sources};
}

}  // namespace

std::optional<FunctionBounds> function_bounds(const ElfBinary& binary, uint64_t vaddr) {
  if (auto b = sized_symbol(binary, vaddr)) return b;
  if (auto b = go_function(binary, vaddr)) return b;
  if (auto b = plt_stub(binary, vaddr)) return b;
  if (auto b = unsized_symbol(binary, vaddr)) return b;
  return discovered(binary, vaddr);
}

}  // namespace swprof
