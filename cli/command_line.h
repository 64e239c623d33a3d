#pragma once
// The mistakes CLI11 reports badly, found before it parses: an unknown
// command ("unknown command 'recrod' (did you mean record?)") and an unknown
// option of a command ("unknown option --formt (did you mean --format?)"),
// each pointing at the help of the command concerned.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace swprof::cli {

// The subcommand named by the first argument that is not an option, or null.
CLI::App* named_command(CLI::App& app, const std::vector<std::string>& args);

// "see swprof report --help", or "see swprof --help" without a command.
std::string help_pointer(const CLI::App* command);

// The one-line message for an unknown command or option in `args` (the
// arguments in order, before any "--"), or nullopt when there is none. For a
// prefix command (record), scanning stops at the command to run.
std::optional<std::string> find_unknown_name(CLI::App& app, const std::vector<std::string>& args);

// The line for a parse error CLI11 found: its message and the help of the
// command concerned (a missing command lists the commands).
std::string describe_parse_error(const CLI::ParseError& error, CLI::App& app, const CLI::App* command);

// The candidate closest to `word` by edit distance (adjacent transpositions
// count one), or "" when none is close enough to be a likely typo.
std::string closest_name(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace swprof::cli
