// `swprof script FILE`: every sample with its unwound frames.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_outline.h"
#include "cli/commands.h"
#include "cli/symbolize_options.h"
#include "cli/unwind_options.h"
#include "common/same_file.h"
#include "common/text_escape.h"
#include "output/script_writer.h"

namespace swprof::cli {

std::function<int()> add_script_command(CLI::App& app) {
  auto* sub = app.add_subcommand("script", "print every sample: thread, time, kernel frames and unwound user frames");
  auto path = std::make_shared<std::string>("swprof.data");
  auto unwind = std::make_shared<UnwindArgs>();
  auto symbolize = std::make_shared<SymbolizeArgs>();
  auto weight = std::make_shared<std::string>();
  sub->add_option("file", *path, "recording file (default swprof.data)");
  sub->add_option("--weight", *weight,
                  "which samples: cpu (on-CPU only), off-cpu (off-CPU only) or wall (both); default: all")
      ->check(choices(weight_kind_names()));
  unwind->add_to(sub);
  symbolize->add_to(sub);
  return [path, unwind, symbolize, weight]() {
    check_output_is_not_an_input("", symbolize->read_files({*path}));  // standard output
    ScriptOptions options;
    if (!weight->empty()) options.weight = parse_weight_kind(*weight);
    options.unwind = unwind->to_options();
    options.symbolize = symbolize->to_options();
    symbolize->apply_debuginfod();
    std::vector<std::string> warnings;
    write_script(*path, options, stdout, &warnings);
    std::fflush(stdout);
    for (const auto& w : warnings) std::fprintf(stderr, "swprof: warning: %s\n", terminal_safe(w).c_str());
    return kExitOk;
  };
}

}  // namespace swprof::cli
