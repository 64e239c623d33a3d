// swprof: a sampling profiler for native Linux programs.

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cli/bus_error.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/version.h"
#include "common/error.h"
#include "common/text_escape.h"

namespace swprof::cli {

DashDash split_dashdash(std::vector<std::string>& args) {
  DashDash dashdash;
  auto it = std::find(args.begin(), args.end(), "--");
  if (it == args.end()) return dashdash;
  dashdash.given = true;
  dashdash.after.assign(it + 1, args.end());
  args.erase(it, args.end());
  return dashdash;
}

}  // namespace swprof::cli

int main(int argc, char** argv) {
  swprof::cli::exit_on_bus_error();
  CLI::App app{"swprof: a sampling profiler for native Linux programs", "swprof"};
  app.require_subcommand(1);
  app.set_version_flag("--version", swprof::cli::kVersionLine);
  // CLI11 mishandles "--" in a prefix-command subcommand, so the command
  // after "--" is split off here and handed to `record` directly.
  std::vector<std::string> args(argv + 1, argv + argc);
  swprof::cli::DashDash dashdash = swprof::cli::split_dashdash(args);
  std::vector<std::pair<CLI::App*, std::function<int()>>> commands;
  auto add = [&](std::function<int()> run) { commands.emplace_back(app.get_subcommands({}).back(), std::move(run)); };
  // Hidden: the completion script and the man page, written from the commands below.
  add(swprof::cli::add_completion_command(app));
  add(swprof::cli::add_man_page_command(app));
  add(swprof::cli::add_record_command(app, std::move(dashdash)));
  add(swprof::cli::add_attach_command(app));
  add(swprof::cli::add_dump_command(app));
  add(swprof::cli::add_info_command(app));
  add(swprof::cli::add_script_command(app));
  add(swprof::cli::add_report_command(app));
  add(swprof::cli::add_annotate_command(app));
  add(swprof::cli::add_browse_command(app));
  add(swprof::cli::add_flamegraph_command(app));
  add(swprof::cli::add_diff_command(app));
  add(swprof::cli::add_merge_command(app));
  add(swprof::cli::add_archive_command(app));
  add(swprof::cli::add_cache_command(app));
  if (auto unknown = swprof::cli::find_unknown_name(app, args)) {
    std::fprintf(stderr, "swprof: %s\n", unknown->c_str());
    return swprof::kExitUsage;
  }
  const CLI::App* command = swprof::cli::named_command(app, args);
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments reversed
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "swprof: %s\n", swprof::cli::describe_parse_error(e, app, command).c_str());
    return swprof::kExitUsage;
  }
  try {
    for (auto& [sub, run] : commands)
      if (sub->parsed()) return run();
  } catch (const swprof::Error& e) {
    std::fprintf(stderr, "swprof: error: %s\n", swprof::terminal_safe(e.what()).c_str());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "swprof: internal error: %s\n", swprof::terminal_safe(e.what()).c_str());
    return swprof::kExitUsage;
  }
  return swprof::kExitUsage;
}
