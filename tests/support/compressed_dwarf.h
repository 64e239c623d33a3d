#pragma once
// Test binaries with compressed DWARF, made with objcopy from the test programs.

#include <cstdint>
#include <string>
#include <vector>

namespace swprof::testing {

// Writes `plain` to `out` with every DWARF section compressed
// (objcopy --compress-debug-sections=zlib) except .debug_frame, kept as it
// is: what objcopy and ld write when compressing .debug_frame would not make
// it smaller. Returns false when objcopy fails.
bool write_compressed_dwarf_plain_debug_frame(const std::string& plain, const std::string& out, const std::string& dir);

// Whether the section `name` of the ELF file `path` is compressed (SHF_COMPRESSED).
bool section_compressed(const std::string& path, const std::string& name);

// A gABI zlib-compressed section's bytes (an Elf64_Chdr, then the stream)
// holding `prefix`, then zeros: `total` bytes in all, made a MB at a time.
std::vector<uint8_t> zlib_zeros_section(const std::string& prefix, uint64_t total);

}  // namespace swprof::testing
