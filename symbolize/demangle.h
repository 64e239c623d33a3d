#pragma once
// C++ (Itanium ABI) demangling of symbol names, bounded.
//
// A mangled name may stand for an exponentially longer one: a
// back-reference repeats a type already named, so a type that names the one
// before it twice doubles at every step (a 175-byte symbol demangles to
// 193 MB). The name is demangled with libiberty's demangler (the one inside
// abi::__cxa_demangle and c++filt, same output) through its callback
// interface, which writes the result in pieces and allocates nothing: a
// name that grows past its bound stops the demangler there. A pack
// expansion (`Dp`, `sp`) makes the demangler search its pattern for an
// argument pack, following every back-reference each time it is used
// without writing anything: a name that may hold one is parsed first and
// its tree measured with each shared part counted at each use.

#include <cstddef>
#include <string>

namespace swprof {

// A mangled name longer than this stays as it is, as the demangler itself
// leaves it (libiberty's guard against deep recursion, also
// abi::__cxa_demangle's): its tree is on the stack, about 72 bytes per
// character of the name.
inline constexpr size_t kMaxMangledLength = 1024;
// A demangled name may be at most this many times as long as its mangled
// name (real names: up to about 20 times), and a pack expansion's tree at
// most this many nodes per character (real names: up to about 9).
inline constexpr size_t kMaxDemangledRatio = 64;

// The demangled form of `name` when it is a mangled C++ name ("_Z...")
// within the bounds above, else `name` unchanged (C names, names the
// demangler rejects, names over the bounds).
std::string demangle(const char* name);

}  // namespace swprof
