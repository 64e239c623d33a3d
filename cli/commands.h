#pragma once
// Each command: register its options on the CLI11 app, then run with the
// parsed values by calling one library function.

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace swprof::cli {

// The first "--" of the command line and what followed it (the command for
// `record`): split off in main, since CLI11 mishandles "--" in a
// prefix-command subcommand.
struct DashDash {
  bool given = false;
  std::vector<std::string> after;
};
// Removes the first "--" and everything after it from `args`.
DashDash split_dashdash(std::vector<std::string>& args);

// Registers the subcommand; the returned callback runs it and gives the exit code.
// Hidden: what the build writes from the command line itself (the whole app,
// read when they run, after every command is registered).
std::function<int()> add_completion_command(CLI::App& app);
std::function<int()> add_man_page_command(CLI::App& app);
std::function<int()> add_record_command(CLI::App& app, DashDash dashdash);
std::function<int()> add_attach_command(CLI::App& app);
std::function<int()> add_dump_command(CLI::App& app);
std::function<int()> add_info_command(CLI::App& app);
std::function<int()> add_script_command(CLI::App& app);
std::function<int()> add_report_command(CLI::App& app);
std::function<int()> add_annotate_command(CLI::App& app);
std::function<int()> add_browse_command(CLI::App& app);
std::function<int()> add_flamegraph_command(CLI::App& app);
std::function<int()> add_diff_command(CLI::App& app);
std::function<int()> add_merge_command(CLI::App& app);
std::function<int()> add_archive_command(CLI::App& app);
std::function<int()> add_cache_command(CLI::App& app);

}  // namespace swprof::cli
