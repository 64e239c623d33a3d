#pragma once
// Symbolized addresses written by hand, as the Symbolizer would give them,
// for the tests of what is built from them (frame interning, stacks).

#include <string>
#include <utility>
#include <vector>

#include "symbolize/symbolizer.h"

namespace swprof::testing {

// A frame of `function` in `module`, inlined into its caller or not.
inline SourceFrame source(const std::string& function, const std::string& module, bool inlined = false) {
  SourceFrame f;
  f.function = function;
  f.module = module;
  f.inlined = inlined;
  return f;
}

inline SymbolizedAddress address(std::vector<SourceFrame> innermost_first) {
  return SymbolizedAddress{std::move(innermost_first)};
}

}  // namespace swprof::testing
