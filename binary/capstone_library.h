#pragma once
// Capstone, loaded (dlopen) when first needed rather than linked: linking
// it costs every process about 1 ms at start, the dynamic loader applying
// its 77 k relocations, whether it decodes an instruction or not. Commands
// that unwind start loading it on a thread of their own (preload_capstone)
// while they open and read their input.
//
// The header's types and constants are used as they are; the functions are
// looked up in the library of the same major version (its soname,
// SWPROF_CAPSTONE_SONAME, set by the build from the version compiled
// against).

#include <capstone/capstone.h>

#include <string>

namespace swprof {

struct CapstoneLibrary {
  decltype(&::cs_open) open = nullptr;
  decltype(&::cs_option) option = nullptr;
  decltype(&::cs_close) close = nullptr;
  decltype(&::cs_malloc) malloc = nullptr;
  decltype(&::cs_free) free = nullptr;
  decltype(&::cs_disasm_iter) disasm_iter = nullptr;
  decltype(&::cs_insn_group) insn_group = nullptr;
  decltype(&::cs_regs_access) regs_access = nullptr;
};

// The library, loaded on the first call (from any thread; it stays loaded);
// nullptr when it cannot be loaded or lacks a function.
const CapstoneLibrary* capstone_library();

// Why capstone_library() is nullptr: "" when it is not, or when it was
// never called.
std::string capstone_load_problem();

// The Debian package that has the library ("libcapstone4").
std::string capstone_package();

// Starts loading the library on a thread of its own, so that the first
// decoder does not wait for it. Idempotent; waited for at exit.
void preload_capstone();

}  // namespace swprof
