#pragma once
// Helpers for the symbolizer tests: the built test programs
// (tests/programs/sym_*), their probe addresses, marker lines in their
// sources, and address spaces laid out as the dynamic loader would.
// Expected values come from the programs themselves, their sources and
// binutils (nm), never from the symbolizer.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "unwind/address_space.h"

namespace swprof::testing {

// A file built next to the test programs (build/tests/programs/NAME).
std::string program_file(const std::string& name);

// 1-based number of the line of tests/programs/SOURCE holding `marker`.
uint32_t marker_line(const std::string& source, const std::string& marker);

// Runs sym_target once: probe tag -> ELF virtual address of the probe's
// return address ("inline", "static", "template").
const std::map<std::string, uint64_t>& probe_addresses();

// Standard output of a shell command; fails the test when it fails.
std::string command_output(const std::string& command);

// Defined symbols by name from `nm` (`nm -D` when dynamic).
std::multimap<std::string, uint64_t> nm_symbols(const std::string& path, bool dynamic);

// objdump's labels of whole stubs in an `objdump -d` listing
// ("0000000000001040 <write@plt>:"): address -> label, without the relative
// ones ("puts@plt-0x10", "*ABS*+0x4187e0@plt").
std::map<uint64_t, std::string> objdump_stub_labels(const std::string& listing_file);

// The mappings the loader makes for `path` at load address `base` (one per
// PT_LOAD, page-rounded), resolved through `binaries`.
ProcessMaps load_like_loader(BinaryCache& binaries, const std::string& path, uint64_t base);

// This machine's libc, and the address (ELF vaddr) right after the `syscall`
// instruction of its execve: where a thread inside execve has its pc.
inline const char* const kLibcPath = "/lib/x86_64-linux-gnu/libc.so.6";
uint64_t after_execve_syscall(const ElfBinary& libc);

// The file offset of ELF virtual address vaddr in `path`.
uint64_t file_offset_of(const std::string& path, uint64_t vaddr);

std::string basename_of(const std::string& path);
void copy_file(const std::string& from, const std::string& to);

// <root>/.build-id/xx/yyyy.debug for the build-id of the ELF file `binary`.
std::string build_id_path(const std::string& root, const std::string& binary);
void write_file(const std::string& path, const std::string& bytes);

}  // namespace swprof::testing
