#include "unwind/bottom_stepper.h"

#include "binary/lazy_cfi_table.h"

namespace swprof {
namespace {

bool contains(const std::vector<std::pair<uint64_t, uint64_t>>& ranges, uint64_t vaddr) {
  for (const auto& [lo, hi] : ranges)
    if (vaddr >= lo && vaddr < hi) return true;
  return false;
}

// The entry code: from the ELF entry point to the end of its first
// instruction that does not fall through (ld.so: `jmp *%r12` into the
// program; _start: `hlt` after calling __libc_start_main), stopping early
// where another function's symbol begins; in a binary without symbols,
// where an FDE begins (whole-binary discovery would cost every stripped
// program its price in every report, for code that the stop instruction
// ends anyway), or with no FDEs either, a discovered function. Calls fall
// through.
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

std::optional<std::pair<uint64_t, uint64_t>> entry_code(const ElfBinary& binary, X86Decoder& decoder) {
  const uint64_t entry = binary.entry();
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

}  // namespace

const BottomStepper::Ranges& BottomStepper::entry_ranges(const ElfBinary& binary, bool thread_entries) {
  if (&binary == last_binary_) return thread_entries ? last_->second : last_->first;
  auto it = cache_.find(&binary);
  if (it == cache_.end()) {
    std::pair<Ranges, Ranges> found;
    auto add = [&](Ranges& out, const FunctionSymbol* f) {
      if (f) out.emplace_back(f->start, f->start + std::max<uint64_t>(f->size, 1));
    };
    add(found.first, binary.function_named("_start"));
    if (binary.entry()) {
      add(found.first, binary.function_at(binary.entry()));
      if (!decoder_) decoder_.emplace();
      if (auto code = entry_code(binary, *decoder_)) found.first.push_back(*code);
    }
    for (const char* name : {"clone", "__clone", "clone3", "__clone3", "__clone_internal"})
      add(found.second, binary.function_named(name));
    it = cache_.emplace(&binary, std::move(found)).first;
  }
  last_binary_ = &binary;
  last_ = &it->second;
  return thread_entries ? it->second.second : it->second.first;
}

StepAnswer BottomStepper::step(const StepInput& in, Registers&) {
  if (in.regs.pc() == 0) return StepAnswer::bottom_by_pc();
  if (!in.mapping || !in.mapping->binary) return StepAnswer::not_mine_by_pc();
  const uint64_t vaddr = in.mapping->to_vaddr(in.lookup_pc());
  if (contains(entry_ranges(*in.mapping->binary, false), vaddr)) return StepAnswer::bottom_by_pc();
  // A thread's first frame returns into clone/clone3; the parent calling clone
  // is only ever the sampled frame itself, so exact pcs are not the bottom.
  if (!in.address.is_exact() && contains(entry_ranges(*in.mapping->binary, true), vaddr))
    return StepAnswer::bottom_by_pc();
  return StepAnswer::not_mine_by_pc();
}

}  // namespace swprof
