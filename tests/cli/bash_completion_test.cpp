// The bash completion script `swprof completion bash` writes: sourced in a
// real bash, its function is called as bash calls it on <TAB> (COMP_WORDS,
// COMP_CWORD) and must offer the commands, options and values swprof parses.

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compare/diff_format.h"
#include "output/report_format.h"
#include "profile/profile.h"
#include "sampler/event_spec.h"
#include "support/cli_harness.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

using Words = std::vector<std::string>;

std::string write_script(const TempDir& dir) {
  const std::string script = dir.file("swprof.bash");
  const ProcessResult r = run({swprof_bin(), "completion", "bash", "-o", script}, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return script;
}

// What _swprof puts in COMPREPLY for the command line `words` (the last one
// is the word being completed), sorted; run in `dir`.
Words complete(const std::string& script, const Words& words, const std::string& dir) {
  const std::string driver =
      "source \"$1\" || exit 3; shift; COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); COMP_LINE=\"$*\"; "
      "COMP_POINT=${#COMP_LINE}; _swprof || exit 4; printf '%s\\n' \"${COMPREPLY[@]}\"";
  std::vector<std::string> argv = {"/bin/bash", "--norc", "--noprofile", "-c", driver, "bash", script};
  argv.insert(argv.end(), words.begin(), words.end());
  const ProcessResult r = run(argv, dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  Words out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) out.push_back(line);
  std::sort(out.begin(), out.end());
  return out;
}

Words sorted(Words w) {
  std::sort(w.begin(), w.end());
  return w;
}

// The commands `swprof --help` lists, sorted.
Words help_commands(const std::string& dir) {
  const ProcessResult r = run({swprof_bin(), "--help"}, dir);
  REQUIRE(r.exit_code == 0);
  Words out;
  std::istringstream lines(r.out.substr(r.out.find("Subcommands:")));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line) && line.rfind("  ", 0) == 0) out.push_back(line.substr(2, line.find(' ', 2) - 2));
  return sorted(out);
}

}  // namespace

TEST_CASE("completion: commands and options come from the command line swprof parses", "[integration]") {
  TempDir dir;
  const std::string script = write_script(dir);
  CHECK(complete(script, {"swprof", "rep"}, dir.path()) == Words{"report"});
  const Words commands = help_commands(dir.path());
  CHECK(commands.size() >= 9);
  CHECK(complete(script, {"swprof", ""}, dir.path()) == commands);
  CHECK(complete(script, {"swprof", "--ver"}, dir.path()) == Words{"--version"});
  CHECK(complete(script, {"swprof", "report", "--fo"}, dir.path()) == Words{"--format"});
  CHECK(complete(script, {"swprof", "report", "--min"}, dir.path()) == Words{"--min-percent"});
  CHECK(complete(script, {"swprof", "flamegraph", "--ic"}, dir.path()) == Words{"--icicle"});
  // The command is found after the program's own options.
  CHECK(complete(script, {"swprof", "--help", "diff", "--thres"}, dir.path()) == Words{"--threshold"});
}

TEST_CASE("completion: values of an option with choices are its choices", "[integration]") {
  TempDir dir;
  const std::string script = write_script(dir);
  CHECK(complete(script, {"swprof", "report", "-f", ""}, dir.path()) == sorted(report_format_names()));
  CHECK(complete(script, {"swprof", "report", "--format", "f"}, dir.path()) == Words{"folded"});
  // bash splits --format=j at "=".
  CHECK(complete(script, {"swprof", "report", "--format", "=", "j"}, dir.path()) == Words{"json"});
  CHECK(complete(script, {"swprof", "report", "--format", "=", ""}, dir.path()) == sorted(report_format_names()));
  CHECK(complete(script, {"swprof", "flamegraph", "--weight", ""}, dir.path()) == sorted(weight_kind_names()));
  CHECK(complete(script, {"swprof", "script", "--weight", "o"}, dir.path()) == Words{"off-cpu"});
  CHECK(complete(script, {"swprof", "diff", "a", "b", "-f", ""}, dir.path()) == sorted(diff_format_names()));
  CHECK(complete(script, {"swprof", "record", "-e", ""}, dir.path()) == sorted(known_event_names()));
  CHECK(complete(script, {"swprof", "attach", "--event", "task"}, dir.path()) == Words{"task-clock"});
}

TEST_CASE("completion: file arguments and file options complete as files, numbers as nothing", "[integration]") {
  TempDir dir;
  const std::string script = write_script(dir);
  std::ofstream(dir.file("run.swprof")) << "x";
  std::ofstream(dir.file("notes.txt")) << "x";
  CHECK(complete(script, {"swprof", "report", "ru"}, dir.path()) == Words{"run.swprof"});
  CHECK(complete(script, {"swprof", "info", "no"}, dir.path()) == Words{"notes.txt"});
  CHECK(complete(script, {"swprof", "report", "-o", "no"}, dir.path()) == Words{"notes.txt"});
  CHECK(complete(script, {"swprof", "flamegraph", "--output", "=", "ru"}, dir.path()) == Words{"run.swprof"});
  CHECK(complete(script, {"swprof", "report", "--top", ""}, dir.path()).empty());
  CHECK(complete(script, {"swprof", "report", "--min-percent", "n"}, dir.path()).empty());
}

TEST_CASE("completion: after the command record runs, swprof's options are not offered", "[integration]") {
  TempDir dir;
  const std::string script = write_script(dir);
  std::ofstream(dir.file("input.txt")) << "x";
  // The command to run: a command name (echo is a bash builtin).
  const Words commands = complete(script, {"swprof", "record", "-F", "99", "-o", "r.swprof", "ech"}, dir.path());
  CHECK(std::find(commands.begin(), commands.end(), "echo") != commands.end());
  // Its arguments are its own (files here, without bash-completion's helpers).
  CHECK(complete(script, {"swprof", "record", "-F", "99", "./app", "--f"}, dir.path()).empty());
  CHECK(complete(script, {"swprof", "record", "--", "./app", "in"}, dir.path()) == Words{"input.txt"});
  CHECK(complete(script, {"swprof", "record", "--no-inherit", "--fr"}, dir.path()) == Words{"--freq"});
  CHECK(complete(script, {"swprof", "record", "--event", "=", "cpu-clock", "--of"}, dir.path()) ==
        sorted({"--off-cpu", "--off-cpu-every", "--off-cpu-min", "--off-cpu-stack-size"}));
}

TEST_CASE("completion: the script registers _swprof, and hidden commands stay out of help and suggestions", "[integration]") {
  TempDir dir;
  const std::string script = write_script(dir);
  const ProcessResult r = run({"/bin/bash", "--norc", "--noprofile", "-c", "source \"$1\" && complete -p swprof", "bash", script},
                              dir.path());
  CHECK(r.exit_code == 0);
  CHECK(r.out == "complete -F _swprof swprof\n");
  const ProcessResult help = run({swprof_bin(), "--help"}, dir.path());
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("report") != std::string::npos);
  CHECK(help.out.find("completion") == std::string::npos);
  CHECK(help.out.find("man-page") == std::string::npos);
  const ProcessResult zsh = run({swprof_bin(), "completion", "zsh"}, dir.path());
  CHECK(zsh.exit_code == 2);
  CHECK(line_count(zsh.err) == 1);
  CHECK(zsh.err.find("only bash") != std::string::npos);
  // The build wrote the same script next to the binary, for `cmake --install`.
  const std::string built = swprof_bin().substr(0, swprof_bin().rfind('/')) + "/share/bash-completion/completions/swprof";
  CHECK(read_file(built) == read_file(script));
}
