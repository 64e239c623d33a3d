#pragma once
// The real perf, run by a test so that nothing outside the test's folder
// changes: in a private mount namespace whose /tmp is the test's folder (perf
// writes /tmp/perf-vdso.so-* files), with HOME there too, and `record` with
// -N (no ~/.debug build-id cache). The test programs stay visible at their
// paths when the build is under /tmp.

#include <string>
#include <vector>

#include "support/cli_harness.h"
#include "support/temp_dir.h"

namespace swprof::testing {

// `perf ARGS...` run in `dir` with /tmp and HOME being `dir`.
ProcessResult run_perf(const TempDir& dir, const std::vector<std::string>& args);

// Records `command` into dir/NAME with `perf record -N -q -F 999 OPTIONS`
// (the test fails unless it succeeds); its path.
std::string perf_record(const TempDir& dir, const std::string& name, const std::vector<std::string>& options,
                        const std::vector<std::string>& command);

}  // namespace swprof::testing
