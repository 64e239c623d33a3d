#pragma once
// `swprof script`: every sample with its thread, time and unwound frames,
// symbolized: function (demangled), module+offset, file:line, inline frames.

#include <cstdio>
#include <string>

#include "profile/profile.h"
#include "symbolize/symbolizer.h"
#include "unwind/recording_unwinder.h"

namespace swprof {

struct ScriptOptions {
  UnwindOptions unwind;
  SymbolizerOptions symbolize;
  // nullopt: every sample; cpu: on-CPU samples only; off-cpu: off-CPU samples
  // only; wall: both (the recording must have off-CPU data for the last two).
  std::optional<WeightKind> weight;
};

// Writes the script text to `out`; returns the unwinding statistics. An
// off-CPU sample's header line gives its time off the CPU in place of the
// period: "off-cpu 4.012 ms (blocked)", "(preempted)", "(open)" (still off
// at the end of the recording) or "(unmatched)" (no switch-out record).
UnwindStats write_script(const std::string& recording, const ScriptOptions& options, FILE* out,
                         std::vector<std::string>* warnings);

// The lines of one user frame, innermost inline frame first, each starting
// with a tab: "pc function+0xOFF (module+0xOFF) file:line [stepper]", inlined
// functions as "pc function (inlined) file:line".
std::string format_user_frame(const Frame& frame, const SymbolizedAddress& where);
// "\tpc function+0xOFF ([kernel])" or "\tpc [unknown] ([kernel]+0xADDR)".
std::string format_kernel_frame(uint64_t addr, const SymbolizedAddress& where);

}  // namespace swprof
