#pragma once
// `swprof script`: every sample with its thread, time and unwound frames.

#include <cstdio>
#include <string>

#include "unwind/recording_unwinder.h"

namespace swprof {

struct ScriptOptions {
  UnwindOptions unwind;
};

// Writes the script text to `out`; returns the unwinding statistics.
UnwindStats write_script(const std::string& recording, const ScriptOptions& options, FILE* out,
                         std::vector<std::string>* warnings);

}  // namespace swprof
