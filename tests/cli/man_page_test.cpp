// The man page `swprof man-page` writes: roff that groff reads without a
// warning and `man -l` shows with every command and option.

#include <catch2/catch.hpp>
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
  for (const char* section : {"\n.SH NAME\n", "\n.SH SYNOPSIS\n", "\n.SH DESCRIPTION\n", "\n.SH COMMANDS\n", "\n.SH \"EXIT STATUS\"\n"})
    CHECK(has(roff, section));
}

TEST_CASE("man page: man shows every command with its options and their help", "[integration]") {
  TempDir dir;
  const std::string text = rendered(write_man_page(dir), dir.path());
  INFO(text.substr(0, 2000));
  CHECK(has(text, "swprof - a sampling profiler for native Linux programs"));
  for (const char* command : {"record", "attach", "dump", "info", "script", "report", "flamegraph", "diff", "merge"})
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
