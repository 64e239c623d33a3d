#include "cli/command_line.h"

#include <algorithm>
#include <cctype>

namespace swprof::cli {
namespace {

// Optimal string alignment distance: insertions, deletions, substitutions
// and transpositions of adjacent characters each cost one.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string without_dashes(const std::string& s) { return s.substr(std::min(s.find_first_not_of('-'), s.size())); }

bool is_option_token(const std::string& tok) {
  // "-" is a file name (standard input or output), "-5" a negative number.
  return tok.size() > 1 && tok[0] == '-' && !std::isdigit(static_cast<unsigned char>(tok[1])) && tok[1] != '.';
}

// "--format" of "--format=json"; "-j" of "-j4".
std::string option_name(const std::string& tok) {
  if (tok.rfind("--", 0) == 0) return tok.substr(0, tok.find('='));
  return tok.substr(0, 2);
}

bool value_attached(const std::string& tok) {
  return tok.rfind("--", 0) == 0 ? tok.find('=') != std::string::npos : tok.size() > 2;
}

std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : command.get_options()) {
    for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
    for (const auto& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// Hidden commands (CLI11 group "") are run by name but never suggested.
bool visible(const CLI::App* command) { return !command->get_group().empty(); }

std::string unknown_message(const std::string& what, const std::string& word, const std::vector<std::string>& candidates,
                            const CLI::App* command) {
  const std::string close = closest_name(word, candidates);
  return what + (close.empty() ? "" : " (did you mean " + close + "?)") + "; " + help_pointer(command);
}

std::optional<std::string> unknown_option_of(CLI::App& command, const std::vector<std::string>& args, size_t first) {
  for (size_t i = first; i < args.size(); ++i) {
    const std::string& tok = args[i];
    if (!is_option_token(tok)) {
      if (command.get_prefix_command()) return std::nullopt;  // the command to run starts here
      continue;
    }
    const std::string name = option_name(tok);
    const CLI::Option* opt = command.get_option_no_throw(name);
    if (!opt) return unknown_message("unknown option " + name, name, option_names(command), &command);
    if (opt->get_type_size_max() > 0 && !value_attached(tok)) ++i;  // its value
  }
  return std::nullopt;
}

}  // namespace

std::string closest_name(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string bare = without_dashes(word);
  std::string best;
  size_t best_distance = 3;  // at most two edits ...
  for (const auto& c : candidates) {
    const size_t d = edit_distance(bare, without_dashes(c));
    if (d < best_distance && 2 * d < bare.size()) {  // ... and fewer than half the word
      best_distance = d;
      best = c;
    }
  }
  return best;
}

CLI::App* named_command(CLI::App& app, const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (is_option_token(a)) continue;
    for (CLI::App* sub : app.get_subcommands({}))
      if (sub->get_name() == a) return sub;
    return nullptr;
  }
  return nullptr;
}

std::string help_pointer(const CLI::App* command) {
  return command ? "see swprof " + command->get_name() + " --help" : "see swprof --help";
}

std::string describe_parse_error(const CLI::ParseError& error, CLI::App& app, const CLI::App* command) {
  if (!command && dynamic_cast<const CLI::RequiredError*>(&error)) {
    std::string names;
    for (CLI::App* sub : app.get_subcommands({}))
      if (visible(sub)) names += (names.empty() ? "" : ", ") + sub->get_name();
    return "no command given: use one of " + names + "; " + help_pointer(nullptr);
  }
  // Numeric options (cli/number_options.h) say all there is to say.
  if (dynamic_cast<const CLI::ValidationError*>(&error)) return error.what();
  return std::string(error.what()) + "; " + help_pointer(command);
}

std::optional<std::string> find_unknown_name(CLI::App& app, const std::vector<std::string>& args) {
  size_t i = 0;
  for (; i < args.size() && is_option_token(args[i]); ++i)
    if (!app.get_option_no_throw(option_name(args[i])))
      return unknown_message("unknown option " + option_name(args[i]), option_name(args[i]), option_names(app), nullptr);
  if (i == args.size()) return std::nullopt;
  std::vector<std::string> commands;
  for (CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == args[i]) return unknown_option_of(*sub, args, i + 1);
    if (visible(sub)) commands.push_back(sub->get_name());
  }
  return unknown_message("unknown command '" + args[i] + "'", args[i], commands, nullptr);
}

}  // namespace swprof::cli
