#include "unwind/bottom_stepper.h"

#include "binary/function_bounds.h"

namespace swprof {
namespace {

bool contains(const std::vector<std::pair<uint64_t, uint64_t>>& ranges, uint64_t vaddr) {
  for (const auto& [lo, hi] : ranges)
    if (vaddr >= lo && vaddr < hi) return true;
  return false;
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
