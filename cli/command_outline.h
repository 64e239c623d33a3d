#pragma once
// What the command line is made of, read from the CLI11 app that parses it:
// the commands, their options and arguments, which take a value and which
// values they accept. Shell completion and the man page are written from it,
// so they cannot drift from the parser.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace swprof::cli {

// A check that accepts every value and lists the choices ("{a,b,c}", as
// CLI11's IsMember does) for help, completion and the man page. The
// command's own parser of the value stays the one that refuses a bad one.
CLI::Validator choices(const std::vector<std::string>& names);

struct OptionOutline {
  std::vector<std::string> names;  // "-f", "--format"; empty for an argument
  std::string argument;            // an argument's name ("file"); empty for an option
  std::string value_type;          // CLI11's type name ("TEXT", "UINT", ...); empty for a flag
  std::vector<std::string> choices;  // the values it takes, when listed
  std::string help;
  bool required = false;
  bool repeats = false;  // may be given several times, or takes several values

  bool takes_value() const { return !value_type.empty(); }
  // A text value without choices: a file name, as far as completion knows.
  bool takes_file() const { return value_type == "TEXT" && choices.empty(); }
};

struct CommandOutline {
  std::string name;  // "swprof" for the program itself
  std::string help;
  std::vector<OptionOutline> options;    // --help first, then in the order they were added
  std::vector<OptionOutline> arguments;  // positional, in order
  bool runs_command = false;  // the rest of the line is a command to run (record)
};

struct ProgramOutline {
  CommandOutline program;  // the options given before any command (--help, --version)
  std::vector<CommandOutline> commands;  // the visible ones, in the order of --help
};

// The outline of `app`; hidden commands (CLI11 group "") are left out.
ProgramOutline outline_of(const CLI::App& app);

// The text of `app`'s description after "NAME: " ("swprof: a sampling
// profiler" -> "a sampling profiler").
std::string description_without_name(const CLI::App& app);

}  // namespace swprof::cli
