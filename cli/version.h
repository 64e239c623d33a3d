#pragma once
// What `swprof --version` prints: "swprof 0.1.0", followed by
// " (git <describe>)" when the build was made from a git checkout.
// Defined in a source the build writes (cmake/version_script.cmake).

namespace swprof::cli {

extern const char* const kVersionLine;

}  // namespace swprof::cli
