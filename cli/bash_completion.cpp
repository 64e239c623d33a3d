#include "cli/bash_completion.h"

namespace swprof::cli {
namespace {

// The generic part; the tables below it say what each command has.
// _swprof_value COMMAND OPTION completes OPTION's value;
// _swprof_takes_value COMMAND OPTION tells whether OPTION has one.
constexpr const char* kFunctions = R"BASH(
_swprof_words() {  # WORDS: those of WORDS that start with the current word
  mapfile -t COMPREPLY < <(compgen -W "$1" -- "$_swprof_cur")
}

_swprof_files() {
  compopt -o filenames 2>/dev/null
  mapfile -t COMPREPLY < <(compgen -f -- "$_swprof_cur")
}

# The index of the command a prefix command runs (the first word after its
# options, or after "--"), or nothing when the current word comes before it
# (an option, or the value of one).
_swprof_run_index() {  # COMMAND FIRST-INDEX
  local i=$2
  while ((i < COMP_CWORD)); do
    local w=${COMP_WORDS[i]}
    if [[ $w == -- ]]; then echo $((i + 1)); return; fi
    if [[ $w != -* ]]; then echo "$i"; return; fi
    if [[ ${COMP_WORDS[i+1]} == = ]]; then ((i += 2));
    elif _swprof_takes_value "$1" "$w"; then ((i++)); fi
    ((i++))
  done
  if ((i == COMP_CWORD)) && [[ $_swprof_cur != -* ]]; then echo "$i"; fi
}

_swprof_run_command() {  # INDEX of the command to run
  if declare -F _command_offset >/dev/null; then _command_offset "$1"; return; fi
  if ((COMP_CWORD == $1)); then
    mapfile -t COMPREPLY < <(compgen -c -- "$_swprof_cur" | sort -u)
  else
    _swprof_files
  fi
}

_swprof() {
  local _swprof_cur=${COMP_WORDS[COMP_CWORD]} prev="" command="" i
  COMPREPLY=()
  # bash splits "--format=json" at "=" (COMP_WORDBREAKS).
  if [[ $_swprof_cur == = ]]; then
    _swprof_cur="" prev=${COMP_WORDS[COMP_CWORD-1]}
  elif ((COMP_CWORD > 1)) && [[ ${COMP_WORDS[COMP_CWORD-1]} == = ]]; then
    prev=${COMP_WORDS[COMP_CWORD-2]}
  elif ((COMP_CWORD > 0)); then
    prev=${COMP_WORDS[COMP_CWORD-1]}
  fi
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ ${COMP_WORDS[i]} != -* ]]; then command=${COMP_WORDS[i]}; break; fi
  done
  if [[ -z $command ]]; then
    if [[ $_swprof_cur == -* ]]; then _swprof_words "$(_swprof_options "")"; else _swprof_words "$_swprof_commands"; fi
    return 0
  fi
  if _swprof_runs_command "$command"; then
    local run
    run=$(_swprof_run_index "$command" $((i + 1)))
    if [[ -n $run ]]; then _swprof_run_command "$run"; return 0; fi
  fi
  if [[ $prev == -* ]] && _swprof_takes_value "$command" "$prev"; then
    _swprof_value "$command" "$prev"
  elif [[ $_swprof_cur == -* ]]; then
    _swprof_words "$(_swprof_options "$command")"
  elif _swprof_file_arguments "$command"; then
    _swprof_files
  fi
  return 0
}
)BASH";

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// "report -f"|"report --format": the case pattern of `option` of `command`.
std::string case_pattern(const std::string& command, const OptionOutline& option) {
  std::string out;
  for (const auto& n : option.names) out += (out.empty() ? "" : "|") + ("\"" + command + " " + n + "\"");
  return out;
}

std::string option_names(const CommandOutline& c) {
  std::vector<std::string> names;
  for (const auto& o : c.options) names.insert(names.end(), o.names.begin(), o.names.end());
  return joined(names);
}

std::string options_function(const ProgramOutline& p) {
  std::string out = "_swprof_options() {  # COMMAND (\"\" before one): its option names\n  case \"$1\" in\n";
  out += "    \"\") echo \"" + option_names(p.program) + "\" ;;\n";
  for (const auto& c : p.commands) out += "    " + c.name + ") echo \"" + option_names(c) + "\" ;;\n";
  return out + "  esac\n}\n";
}

std::string takes_value_function(const ProgramOutline& p) {
  std::string out = "_swprof_takes_value() {  # COMMAND OPTION\n  case \"$1 $2\" in\n";
  for (const auto& c : p.commands)
    for (const auto& o : c.options)
      if (o.takes_value()) out += "    " + case_pattern(c.name, o) + ") return 0 ;;\n";
  return out + "  esac\n  return 1\n}\n";
}

std::string value_function(const ProgramOutline& p) {
  std::string out = "_swprof_value() {  # COMMAND OPTION: complete OPTION's value\n  case \"$1 $2\" in\n";
  for (const auto& c : p.commands)
    for (const auto& o : c.options) {
      if (!o.choices.empty()) out += "    " + case_pattern(c.name, o) + ") _swprof_words \"" + joined(o.choices) + "\" ;;\n";
      else if (o.takes_file()) out += "    " + case_pattern(c.name, o) + ") _swprof_files ;;\n";
    }
  return out + "  esac\n}\n";
}

std::string command_list_function(const ProgramOutline& p, const std::string& name, bool (*has)(const CommandOutline&)) {
  std::vector<std::string> names;
  for (const auto& c : p.commands)
    if (has(c)) names.push_back(c.name);
  std::string out = name + "() {\n  case \"$1\" in\n";
  if (!names.empty()) {
    std::string pattern;
    for (const auto& n : names) pattern += (pattern.empty() ? "" : "|") + n;
    out += "    " + pattern + ") return 0 ;;\n";
  }
  return out + "  esac\n  return 1\n}\n";
}

bool has_file_arguments(const CommandOutline& c) {
  for (const auto& a : c.arguments)
    if (a.takes_file()) return true;
  return false;
}

bool runs_command(const CommandOutline& c) { return c.runs_command; }

}  // namespace

std::string bash_completion_script(const ProgramOutline& outline) {
  const std::string name = outline.program.name;
  std::vector<std::string> commands;
  for (const auto& c : outline.commands) commands.push_back(c.name);
  std::string out = "# bash completion for " + name + ", written by `" + name +
                    " completion bash` from the command line it parses.\n"
                    "# Installed as share/bash-completion/completions/" + name + "; or source it from ~/.bashrc.\n";
  out += "\n_swprof_commands=\"" + joined(commands) + "\"\n\n";
  out += options_function(outline) + "\n" + takes_value_function(outline) + "\n" + value_function(outline) + "\n";
  out += command_list_function(outline, "_swprof_file_arguments", has_file_arguments) + "\n";
  out += command_list_function(outline, "_swprof_runs_command", runs_command);
  out += kFunctions;
  out += "\ncomplete -F _swprof " + name + "\n";
  return out;
}

}  // namespace swprof::cli
