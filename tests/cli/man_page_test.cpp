// The man page `swprof man-page` writes: roff that groff reads without a
// warning and `man -l` shows with every command and option.

#include <algorithm>
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "output/report_format.h"
#include "support/cli_harness.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

std::string write_man_page(const TempDir& dir) {
  const std::string page = dir.file("swprof.1");
  const ProcessResult r = run({swprof_bin(), "man-page", "-o", page}, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return page;
}

// `man -l` reading the page from standard input (man drops root's rights,
// and may not read the test's folder), rendered as plain text.
std::string rendered(const std::string& page, const std::string& dir) {
  const ProcessResult r = run({"/bin/sh", "-c", "MANWIDTH=200 MANPAGER=cat PAGER=cat man -l - < \"$1\" | col -b", "sh", page}, dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// `line` without its indentation (col writes runs of spaces as tabs).
std::string unindented(const std::string& line) { return line.substr(std::min(line.find_first_not_of(" \t"), line.size())); }

// The lines of `text`, without their indentation.
std::vector<std::string> trimmed_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(unindented(line));
  return lines;
}

// The rendered section `title`: its lines without their indentation, up to
// the next line at the left margin (a section heading or the footer).
std::vector<std::string> section(const std::string& text, const std::string& title) {
  std::vector<std::string> out;
  std::istringstream in(text);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != ' ' && line[0] != '\t') inside = line == title;
    else if (inside) out.push_back(unindented(line));
  }
  return out;
}

// `text` with every run of blanks and line breaks as one space.
std::string squeezed(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const bool blank = c == ' ' || c == '\t' || c == '\n';
    if (!blank) out += c;
    else if (!out.empty() && out.back() != ' ') out += ' ';
  }
  return out;
}

bool contains(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

}  // namespace

TEST_CASE("man page: groff reads it without warnings", "[integration]") {
  TempDir dir;
  const std::string page = write_man_page(dir);
  const ProcessResult r = run({"/usr/bin/groff", "-man", "-Tutf8", "-ww", "-z", page}, dir.path());
  CHECK(r.exit_code == 0);
  CHECK(r.err == "");
  const std::string roff = read_file(page);
  CHECK(roff.rfind(".\\\" ", 0) == 0);
  CHECK(has(roff, "\n.TH SWPROF 1 "));
  for (const char* heading : {"\n.SH NAME\n", "\n.SH SYNOPSIS\n", "\n.SH DESCRIPTION\n", "\n.SH COMMANDS\n",
                              "\n.SH \"EXIT STATUS\"\n", "\n.SH \"EXAMPLES\"\n"})
    CHECK(has(roff, heading));
}

TEST_CASE("man page: man shows every command with its options and their help", "[integration]") {
  TempDir dir;
  const std::string text = rendered(write_man_page(dir), dir.path());
  INFO(text.substr(0, 2000));
  CHECK(has(text, "swprof - a sampling profiler for native Linux programs"));
  for (const char* command : {"record", "attach", "dump", "info", "script", "report", "annotate", "browse", "flamegraph",
                              "diff", "merge"})
    CHECK(has(text, std::string("   swprof ") + command + " [options]"));
  CHECK_FALSE(has(text, "swprof completion"));
  CHECK_FALSE(has(text, "swprof man-page"));
  CHECK(has(text, "swprof record [options]"));
  CHECK(has(text, "[--] command [args ...]"));
  CHECK(has(text, "-f, --format text|folded|json|speedscope|pprof"));
  CHECK(has(text, "text (default), folded, json, speedscope or pprof"));
  CHECK(has(text, "--off-cpu-min"));
  CHECK(has(text, "swprof report [options] [file]"));
  CHECK(has(text, "swprof merge [options] inputs ..."));
  CHECK(has(text, "--version"));
  CHECK(has(text, "EXIT STATUS"));
}

TEST_CASE("man page: the build wrote it next to the binary, for cmake --install", "[integration]") {
  TempDir dir;
  const std::string built = swprof_bin().substr(0, swprof_bin().rfind('/')) + "/share/man/man1/swprof.1";
  CHECK(read_file(built) == read_file(write_man_page(dir)));
}

TEST_CASE("man page: EXAMPLES shows each example line for line, between FILES and SEE ALSO", "[integration]") {
  TempDir dir;
  const std::string text = rendered(write_man_page(dir), dir.path());
  INFO(text.substr(std::min(text.find("EXAMPLES"), text.size())));
  const std::vector<std::string> lines = trimmed_lines(text);
  const auto at = [&](const std::string& line) { return std::find(lines.begin(), lines.end(), line) - lines.begin(); };
  REQUIRE(contains(lines, "EXAMPLES"));
  CHECK(at("FILES") < at("EXAMPLES"));
  CHECK(at("EXAMPLES") < at("SEE ALSO"));
  const std::vector<std::string> examples = section(text, "EXAMPLES");
  // Each command on a line of its own, as written: not filled into the
  // paragraph before it, hyphens searchable as hyphens.
  for (const char* command : {"swprof record -o app.swprof -- ./app --input big.txt", "swprof report app.swprof",
                              "swprof flamegraph app.swprof -o app.html",
                              "swprof attach 4242 --duration 10 --wall -o server.swprof",
                              "swprof diff base.json new.json -f markdown -o diff.md", "swprof dump 4242",
                              "swprof report perf.data", "swprof script app.swprof",
                              "swprof report app.swprof -f folded > app.folded"})
    CHECK(contains(examples, command));
  CHECK(has(squeezed(text), "exit status decide (0: no significant regression, 1: a regression, 2: an error)"));
}

TEST_CASE("man page: every example runs a command and options that swprof parses", "[integration]") {
  TempDir dir;
  const std::vector<std::string> examples = section(rendered(write_man_page(dir), dir.path()), "EXAMPLES");
  int checked = 0;
  for (const auto& line : examples) {
    if (line.rfind("swprof ", 0) != 0) continue;
    std::istringstream words(line);
    std::string program, command;
    words >> program >> command;
    const ProcessResult help = run({swprof_bin(), command, "--help"}, dir.path());
    INFO(line);
    REQUIRE(help.exit_code == 0);
    for (std::string word; words >> word;) {
      if (word == "--" || word == ">") break;  // the profiled command's own arguments, or a redirection
      if (word[0] == '-') CHECK(has(help.out, word));
    }
    ++checked;
  }
  CHECK(checked >= 10);
}
