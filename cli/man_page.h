#pragma once
// The man page of a command line, in roff (man(7) macros), written from its
// outline: NAME, SYNOPSIS, DESCRIPTION, COMMANDS with each command's
// arguments and options and their help, then the closing sections.

#include <string>
#include <vector>

#include "cli/command_outline.h"

namespace swprof::cli {

struct ManPageText {
  std::string summary;  // NAME's "program - summary"
  std::string version;  // the footer's "swprof 0.1.0"
  std::vector<std::string> description;  // DESCRIPTION's paragraphs
  // Closing sections, in order: {"EXIT STATUS", "text"}, ...; each
  // paragraph of text separated by a blank line. A paragraph whose every
  // line starts with four spaces is an example, shown line for line.
  std::vector<std::pair<std::string, std::string>> sections;
};

std::string man_page(const ProgramOutline& outline, const ManPageText& text);

// `text` as roff body text: backslashes escaped, no line starting with a
// control character ("." or "'"), hyphens of option names as \-.
std::string roff_escape(const std::string& text);

}  // namespace swprof::cli
