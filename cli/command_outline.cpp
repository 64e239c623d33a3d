#include "cli/command_outline.h"

namespace swprof::cli {
namespace {

std::string joined(const std::vector<std::string>& names, const std::string& separator) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : separator) + n;
  return out;
}

// {a,b,c} of a type name such as "TEXT:{a,b,c}", or nothing.
std::vector<std::string> listed_choices(const std::string& type_name) {
  const size_t open = type_name.find(":{");
  const size_t close = type_name.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return {};
  std::vector<std::string> names;
  std::string list = type_name.substr(open + 2, close - open - 2);
  for (size_t start = 0; start <= list.size();) {
    const size_t comma = std::min(list.find(',', start), list.size());
    if (comma > start) names.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return names;
}

// "TEXT" of "TEXT:{a,b}"; CLI11 gives flags an empty type name.
std::string base_type(const std::string& type_name) { return type_name.substr(0, type_name.find(':')); }

OptionOutline outline_of(const CLI::Option& opt) {
  OptionOutline o;
  for (const auto& s : opt.get_snames()) o.names.push_back("-" + s);
  for (const auto& l : opt.get_lnames()) o.names.push_back("--" + l);
  if (o.names.empty()) o.argument = opt.get_name();
  if (opt.get_type_size_max() > 0) o.value_type = base_type(opt.get_type_name());
  if (o.takes_value() && o.value_type.empty()) o.value_type = "VALUE";
  o.choices = listed_choices(opt.get_type_name());
  o.help = opt.get_description();
  o.required = opt.get_required();
  o.repeats = opt.get_expected_max() > 1 || opt.get_items_expected_max() > 1;
  return o;
}

CommandOutline outline_of_command(const CLI::App& command, const std::string& name) {
  CommandOutline c;
  c.name = name;
  c.help = command.get_description();
  c.runs_command = command.get_prefix_command();
  for (const CLI::Option* opt : command.get_options()) {
    OptionOutline o = outline_of(*opt);
    (o.names.empty() ? c.arguments : c.options).push_back(std::move(o));
  }
  return c;
}

}  // namespace

CLI::Validator choices(const std::vector<std::string>& names) {
  return CLI::Validator("{" + joined(names, ",") + "}");
}

ProgramOutline outline_of(const CLI::App& app) {
  ProgramOutline p;
  p.program = outline_of_command(app, app.get_name());
  for (const CLI::App* sub : app.get_subcommands({}))
    if (!sub->get_group().empty()) p.commands.push_back(outline_of_command(*sub, sub->get_name()));
  return p;
}

std::string description_without_name(const CLI::App& app) {
  const std::string d = app.get_description();
  const std::string prefix = app.get_name() + ": ";
  return d.rfind(prefix, 0) == 0 ? d.substr(prefix.size()) : d;
}

}  // namespace swprof::cli
