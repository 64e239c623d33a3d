#pragma once
// ELF files for the binary/ tests: opened (failing the test when they do not
// open, by ElfBinary or libelf), found on this machine (the libraries this process maps, gcc's cc1),
// or copied with a few bytes of one section changed.

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "binary/elf_binary.h"
#include "common/elf_handle.h"

namespace swprof::testing {

// The ELF file at `path`; fails the test when it does not open.
std::shared_ptr<ElfBinary> open_binary(const std::string& path);

// The start of function `name` in `binary`'s symbols; fails the test when it has none.
uint64_t function_start(const ElfBinary& binary, const char* name);

// The code byte at ELF virtual address `vaddr`; fails the test when there is none.
uint8_t code_byte(const ElfBinary& binary, uint64_t vaddr);

// A libelf handle over `binary`'s bytes (the binary must outlive it).
ElfPtr elf_of(const ElfBinary& binary);

// Paths of the shared libraries this test process has mapped whose names
// contain `part`, sorted, each once.
std::vector<std::string> mapped_libraries(const std::string& part);

// The paths of a ':'-separated list (SWPROF_CFI_TEST_PROGRAMS).
std::vector<std::string> split_paths(const std::string& list);

// gcc's compiler proper, when gcc is installed: large stripped binaries.
std::vector<std::string> cc1_paths();

// A binary's .eh_frame and .eh_frame_hdr (the test fails when one is
// missing), to damage in copies of its file.
struct CfiSections {
  std::shared_ptr<ElfBinary> binary;
  ElfSection eh_frame, eh_frame_hdr;

  std::vector<uint8_t> file_copy() const { return {binary->file_bytes().begin(), binary->file_bytes().end()}; }
};
CfiSections cfi_sections(const std::string& path);

// Changes 1 to `max_changes` random bytes of `section` in `image` (a copy of
// the section's file), past its first `skip` bytes: each a random value at a
// random place, drawn in that order from `rng`.
void damage_section(std::vector<uint8_t>& image, const ElfSection& section, std::mt19937& rng, int max_changes,
                    size_t skip);

}  // namespace swprof::testing
