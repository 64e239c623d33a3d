#include "cli/man_page.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

namespace swprof::cli {
namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// A word that is an option name ("--format", "-f") keeps its hyphens as
// minus signs, so that it can be searched and copied.
bool option_like(const std::string& text, size_t i) {
  return text[i] == '-' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '-' || text[i - 1] == '(') &&
         i + 1 < text.size() && (text[i + 1] == '-' || std::isalnum(static_cast<unsigned char>(text[i + 1])));
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start <= text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// A paragraph whose every line starts with kLiteralIndent spaces is an
// example: shown as it is, line for line and indented, never filled.
constexpr std::string_view kLiteralIndent = "    ";

bool literal(std::string_view paragraph) {
  const std::vector<std::string_view> lines = lines_of(paragraph);
  return std::all_of(lines.begin(), lines.end(),
                     [](std::string_view line) { return line.substr(0, kLiteralIndent.size()) == kLiteralIndent; });
}

std::string literal_block(std::string_view paragraph) {
  std::string text;
  for (const std::string_view line : lines_of(paragraph)) text += std::string(line.substr(kLiteralIndent.size())) + "\n";
  return ".PP\n.RS 4\n.nf\n" + roff_escape(text) + ".fi\n.RE\n";
}

std::string paragraphs(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t blank = std::min(text.find("\n\n", start), text.size());
    const std::string_view paragraph = std::string_view(text).substr(start, blank - start);
    out += literal(paragraph) ? literal_block(paragraph) : ".PP\n" + roff_escape(std::string(paragraph)) + "\n";
    start = blank + 2;
  }
  return out;
}

// A few choices are the value's name ("text|folded|json"); a long list is
// written after the help instead.
constexpr size_t kChoicesInName = 6;

std::string comma_list(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

std::string value_name(const OptionOutline& o) {
  if (!o.choices.empty() && o.choices.size() <= kChoicesInName) {
    std::string list;
    for (const auto& c : o.choices) list += (list.empty() ? "" : "|") + c;
    return list;
  }
  return o.value_type;
}

// .TP entry: the option's names in bold, its value in italics, then its help.
std::string option_entry(const OptionOutline& o) {
  std::string names;
  for (const auto& n : o.names) names += (names.empty() ? "" : ", ") + ("\\fB" + roff_escape(n) + "\\fR");
  if (o.takes_value()) names += " \\fI" + roff_escape(value_name(o)) + "\\fR" + (o.repeats ? " ..." : "");
  std::string out = ".TP\n" + names + "\n" + roff_escape(o.help.empty() ? "(no description)" : o.help) + "\n";
  if (o.choices.size() > kChoicesInName) out += ".br\n" + roff_escape("One of: " + comma_list(o.choices) + ".") + "\n";
  return out;
}

std::string argument_entry(const OptionOutline& a) {
  return ".TP\n\\fI" + roff_escape(a.argument) + "\\fR" + (a.repeats ? " ..." : "") + "\n" + roff_escape(a.help) + "\n";
}

// "record [options] [--] command [args...]", "report [options] [file]".
std::string usage(const CommandOutline& c) {
  std::string out = "\\fB" + roff_escape(c.name) + "\\fR [\\fIoptions\\fR]";
  for (const auto& a : c.arguments) {
    const std::string arg = "\\fI" + roff_escape(a.argument) + "\\fR" + (a.repeats ? " ..." : "");
    out += " " + (a.required ? arg : "[" + arg + "]");
  }
  if (c.runs_command) out += " [\\-\\-] \\fIcommand\\fR [\\fIargs\\fR ...]";
  return out;
}

std::string synopsis(const ProgramOutline& p) {
  const std::string name = "\\fB" + roff_escape(p.program.name) + "\\fR ";
  std::string out = ".SH SYNOPSIS\n";
  for (const auto& c : p.commands) out += name + usage(c) + "\n.br\n";
  return out + name + "\\fB\\-\\-version\\fR\n";
}

std::string command_section(const CommandOutline& c, const std::string& program) {
  std::string out = ".SS \"" + roff_escape(program + " " + c.name) + "\"\n";
  out += roff_escape(program) + " " + usage(c) + "\n.PP\n" + roff_escape(c.help) + "\n";
  for (const auto& a : c.arguments) out += argument_entry(a);
  for (const auto& o : c.options) out += option_entry(o);
  return out;
}

}  // namespace

std::string roff_escape(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool line_start = out.empty() || out.back() == '\n';
    const char c = text[i];
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') out += "\\e";
    else if (option_like(text, i)) out += "\\-";
    else out += c;
  }
  return out;
}

std::string man_page(const ProgramOutline& outline, const ManPageText& text) {
  const std::string& name = outline.program.name;
  std::string out = ".\\\" Written by `" + roff_escape(name) + " man-page` from the command line it parses.\n";
  out += ".TH " + upper(name) + " 1 \"\" \"" + roff_escape(text.version) + "\" \"User Commands\"\n";
  out += ".SH NAME\n" + roff_escape(name) + " \\- " + roff_escape(text.summary) + "\n";
  out += synopsis(outline);
  out += ".SH DESCRIPTION\n";
  for (const auto& p : text.description) out += paragraphs(p);
  out += ".SH OPTIONS\n";
  for (const auto& o : outline.program.options) out += option_entry(o);
  out += ".SH COMMANDS\n";
  for (const auto& c : outline.commands) out += command_section(c, name);
  for (const auto& [title, body] : text.sections) out += ".SH \"" + roff_escape(title) + "\"\n" + paragraphs(body);
  return out;
}

}  // namespace swprof::cli
