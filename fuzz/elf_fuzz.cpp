// Fuzz target: the ELF reader (binary/elf_binary.cpp) on an arbitrary image,
// read from memory as the vDSO is: sections, segments, symbols, build-id, and
// the queries the unwinder and symbolizer make, the PLT stubs' names, and
// the compressed sections over the bound (binary/compressed_sections.h).

#include "binary/elf_binary.h"
#include "binary/compressed_sections.h"
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto binary = swprof::ElfBinary::from_image("fuzz.elf", std::vector<uint8_t>(data, data + size));
  if (!binary) return 0;
  for (const char* name : {".text", ".eh_frame", ".eh_frame_hdr", ".debug_frame", ".symtab", ".note.gnu.build-id"}) {
    auto section = binary->section(name);
    if (!section) continue;
    // A section's bytes lie inside the file.
    const swprof::Bytes file = binary->file_bytes();
    SWPROF_FUZZ_CHECK(section->data.empty() ||
                      (section->data.data() >= file.data() && section->data.data() + section->data.size() <= file.data() + file.size()));
  }
  static_cast<void>(binary->plt_entries().at(binary->entry()));
  static_cast<void>(binary->load_bias(0x7f0000000000, 0));
  static_cast<void>(binary->load_bias(0x7f0000001000, 0x1000));
  const uint64_t entry = binary->entry();
  uint8_t code[16];
  static_cast<void>(binary->read_code(entry, code, sizeof code));
  const swprof::Bytes at_entry = binary->code_at(entry, 64, true);
  SWPROF_FUZZ_CHECK(at_entry.size() <= 64);
  if (const swprof::FunctionSymbol* f = binary->function_at(entry)) {
    SWPROF_FUZZ_CHECK(binary->function_named(f->name) != nullptr);
    static_cast<void>(binary->code_at(f->start, f->size));
  }
  std::vector<uint8_t> copy(binary->file_bytes().begin(), binary->file_bytes().end());
  for (const swprof::OversizedSection& s : swprof::oversized_compressed_sections(binary->elf())) {
    SWPROF_FUZZ_CHECK(!s.problem.empty());
    static_cast<void>(swprof::set_aside_section(copy, binary->elf(), s.index));
  }
  SWPROF_FUZZ_CHECK(copy.size() == binary->file_bytes().size());
  return 0;
}
