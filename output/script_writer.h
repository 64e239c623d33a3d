#pragma once
// `swprof script`: every sample with its thread, time and unwound frames,
// symbolized: function (demangled), module+offset, file:line, inline frames.

#include <cstdio>
#include <string>

#include "symbolize/symbolizer.h"
#include "unwind/recording_unwinder.h"

namespace swprof {

struct ScriptOptions {
  UnwindOptions unwind;
  SymbolizerOptions symbolize;
};

// Writes the script text to `out`; returns the unwinding statistics.
UnwindStats write_script(const std::string& recording, const ScriptOptions& options, FILE* out,
                         std::vector<std::string>* warnings);

// The lines of one user frame, innermost inline frame first, each starting
// with a tab: "pc function+0xOFF (module+0xOFF) file:line [stepper]", inlined
// functions as "pc function (inlined) file:line".
std::string format_user_frame(const Frame& frame, const SymbolizedAddress& where);
// "\tpc function+0xOFF ([kernel])" or "\tpc [unknown] ([kernel]+0xADDR)".
std::string format_kernel_frame(uint64_t addr, const SymbolizedAddress& where);

}  // namespace swprof
