// Fuzz target: Go's function table (binary/go_pclntab.cpp) in an arbitrary
// ELF image, found by section or by scanning the segments, then every
// lookup the Go stepper and the symbolizer make on its first functions.

#include <algorithm>
#include <vector>

#include "binary/elf_binary.h"
#include "binary/go_pclntab.h"
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto binary = swprof::ElfBinary::from_image("fuzz.go", std::vector<uint8_t>(data, data + size));
  if (!binary) return 0;
  const swprof::GoPclntab* table = binary->go_pclntab();
  if (!table) return 0;
  SWPROF_FUZZ_CHECK(table->size() > 0 && table->min_pc() <= table->max_pc());
  std::vector<swprof::GoFrame> frames;
  for (size_t i = 0; i < std::min<size_t>(table->size(), 64); ++i) {
    const auto f = table->func(i);
    if (!f) continue;
    SWPROF_FUZZ_CHECK(f->entry <= f->end);
    static_cast<void>(table->name(*f));
    static_cast<void>(table->is_bottom(*f));
    static_cast<void>(table->switches_stack(*f));
    static_cast<void>(table->start_line(*f));
    for (uint64_t pc : {f->entry, f->entry + (f->end - f->entry) / 2, f->end - 1}) {
      static_cast<void>(table->sp_delta(*f, pc));
      static_cast<void>(table->line(*f, pc));
      frames.clear();
      table->frames_at(*f, pc, frames);
      // The real function is always the last frame, and only it is not inlined.
      SWPROF_FUZZ_CHECK(!frames.empty() && !frames.back().inlined);
      if (auto at = table->func_at(pc)) SWPROF_FUZZ_CHECK(at->entry <= pc && pc < at->end);
    }
  }
  return 0;
}
