// `swprof script FILE`: every sample with its unwound frames.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/unwind_options.h"
#include "output/script_output.h"

namespace swprof::cli {

std::function<int()> add_script_command(CLI::App& app) {
  auto* sub = app.add_subcommand("script", "print every sample: thread, time, kernel frames and unwound user frames");
  auto path = std::make_shared<std::string>("swprof.data");
  auto unwind = std::make_shared<UnwindArgs>();
  auto symbolize = std::make_shared<SymbolizerOptions>();
  auto debug_dirs = std::make_shared<std::vector<std::string>>();
  auto no_demangle = std::make_shared<bool>(false);
  auto no_inline = std::make_shared<bool>(false);
  sub->add_option("file", *path, "recording file (default swprof.data)");
  unwind->add_to(sub);
  sub->add_flag("--no-demangle", *no_demangle, "show C++ function names mangled, as in the symbol table");
  sub->add_flag("--no-inline", *no_inline, "do not show inlined functions as frames of their own");
  sub->add_option("--debug-dir", *debug_dirs,
                  "also look for separate debuginfo under this folder (.build-id/ and .gnu_debuglink; "
                  "repeatable; /usr/lib/debug is always searched)");
  return [path, unwind, symbolize, debug_dirs, no_demangle, no_inline]() {
    ScriptOptions options;
    options.unwind = unwind->to_options();
    options.symbolize = *symbolize;
    options.symbolize.demangle = !*no_demangle;
    options.symbolize.inline_frames = !*no_inline;
    options.symbolize.debug_roots.insert(options.symbolize.debug_roots.begin(), debug_dirs->begin(),
                                         debug_dirs->end());
    std::vector<std::string> warnings;
    write_script(*path, options, stdout, &warnings);
    std::fflush(stdout);
    for (const auto& w : warnings) std::fprintf(stderr, "swprof: warning: %s\n", w.c_str());
    return kExitOk;
  };
}

}  // namespace swprof::cli
