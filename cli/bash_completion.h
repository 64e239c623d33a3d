#pragma once
// The bash completion script of a command line, written from its outline:
// command names, option names, the listed values of an option (formats,
// weights), file names for the other text values and for arguments, and
// for a command that runs a command (record) the completion of that command.

#include <string>

#include "cli/command_outline.h"

namespace swprof::cli {

// A script to source in bash: defines _<program>() and registers it with
// `complete -F` for the program's name.
std::string bash_completion_script(const ProgramOutline& outline);

}  // namespace swprof::cli
