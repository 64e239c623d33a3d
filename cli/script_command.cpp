// `swprof script FILE`: every sample with its unwound frames.

#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/unwind_options.h"
#include "output/script_output.h"

namespace swprof::cli {

std::function<int()> add_script_command(CLI::App& app) {
  auto* sub = app.add_subcommand("script", "print every sample: thread, time, kernel frames and unwound user frames");
  auto path = std::make_shared<std::string>("swprof.data");
  auto unwind = std::make_shared<UnwindArgs>();
  sub->add_option("file", *path, "recording file (default swprof.data)");
  unwind->add_to(sub);
  return [path, unwind]() {
    ScriptOptions options;
    options.unwind = unwind->to_options();
    std::vector<std::string> warnings;
    write_script(*path, options, stdout, &warnings);
    std::fflush(stdout);
    for (const auto& w : warnings) std::fprintf(stderr, "swprof: warning: %s\n", w.c_str());
    return kExitOk;
  };
}

}  // namespace swprof::cli
