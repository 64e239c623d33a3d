#pragma once
// A C program built by the test in its own folder with the system compiler,
// so that it can be rebuilt (another build-id, every function moved) or
// deleted after it was recorded: main -> middle_call -> leaf_work for
// argv[1] seconds (default 0.5); the variant has a function more before them.

#include <string>
#include <vector>

#include "support/cli_harness.h"
#include "support/temp_dir.h"

namespace swprof::testing {

// The program's source; `variant` adds a function before the others.
std::string built_program_source(bool variant);

struct BuiltProgram {
  TempDir dir;
  std::string app = dir.file("app");
  std::string recording = dir.file("app.swprof");
  // Given to every swprof command right after its name, e.g. {"--no-cache"}.
  std::vector<std::string> common_options;

  // Builds the program at `app` with cc OPT -g -fno-omit-frame-pointer
  // EXTRA (the test fails when it does not build).
  void build(bool variant, const char* opt, const std::vector<std::string>& extra = {});
  // `swprof record -o recording app 0.5` (the test fails unless it succeeds).
  void record(const std::vector<std::string>& options = {});
  // swprof ARGS run in the folder.
  ProcessResult swprof(std::vector<std::string> args);
  // Every sample with its frames: function+offset, module+offset, file:line.
  std::string script(std::vector<std::string> extra = {});
};

}  // namespace swprof::testing
