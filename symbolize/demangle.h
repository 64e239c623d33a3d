#pragma once
// C++ (Itanium ABI) demangling of symbol names with abi::__cxa_demangle.

#include <string>

namespace swprof {

// The demangled form of `name` when it is a mangled C++ name ("_Z..."),
// else `name` unchanged (C names, names the demangler rejects).
std::string demangle(const char* name);

}  // namespace swprof
