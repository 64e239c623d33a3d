#pragma once
// Each command: register its options on the CLI11 app, then run with the
// parsed values by calling one library function.

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace swprof::cli {

// What followed a "--" on the command line (the command for `record`).
std::vector<std::string>& command_after_dashdash();
bool& command_after_dashdash_given();

// Registers the subcommand; the returned callback runs it and gives the exit code.
std::function<int()> add_record_command(CLI::App& app);
std::function<int()> add_attach_command(CLI::App& app);
std::function<int()> add_info_command(CLI::App& app);
std::function<int()> add_script_command(CLI::App& app);
std::function<int()> add_report_command(CLI::App& app);
std::function<int()> add_flamegraph_command(CLI::App& app);
std::function<int()> add_diff_command(CLI::App& app);
std::function<int()> add_merge_command(CLI::App& app);

}  // namespace swprof::cli
