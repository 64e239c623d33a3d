// Fuzz target: function discovery (binary/function_starts.cpp) on an
// arbitrary ELF image: seeds from symbols, FDEs, the entry code, init arrays
// and PLT stubs, then recursive descent and gap parsing under a small
// instruction budget. The starts must be sorted and each must be found again
// by a lookup at it.

#include "binary/elf_binary.h"
#include "binary/function_starts.h"
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto binary = swprof::ElfBinary::from_image("fuzz.elf", std::vector<uint8_t>(data, data + size));
  if (!binary) return 0;
  swprof::DiscoveryLimits limits;
  limits.max_instructions = 20000;
  limits.parse_gaps = size % 2 == 0;
  const auto found = swprof::FunctionStarts::discover(*binary, limits);
  const auto starts = found->starts();
  SWPROF_FUZZ_CHECK(found->stats().instructions <= limits.max_instructions + 64);
  for (size_t i = 0; i < starts.size(); ++i) {
    SWPROF_FUZZ_CHECK(i == 0 || starts[i - 1] < starts[i]);
    const auto f = found->at(starts[i]);
    SWPROF_FUZZ_CHECK(f && f->start == starts[i] && f->end > f->start);
    SWPROF_FUZZ_CHECK(i + 1 == starts.size() || f->end <= starts[i + 1]);
  }
  static_cast<void>(found->at(binary->entry()));
  return 0;
}
