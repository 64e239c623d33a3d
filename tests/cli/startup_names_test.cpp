// Stripped executables (no .symtab): the start-up code is named where its
// shape proves it (binary/startup_functions.h), so their stacks end
// `_start -> __libc_start_main -> ... -> main` in reports, as the unstripped
// programs' do.

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "support/cli_harness.h"
#include "support/temp_dir.h"

using namespace swprof::testing;

namespace {

// Samples per folded stack (root first) of a recording of `command`.
std::map<std::string, uint64_t> folded_stacks(const std::vector<std::string>& command) {
  TempDir dir;
  const std::string out = dir.file("s.swprof");
  std::vector<std::string> argv = {swprof_bin(), "record", "-F", "999", "-o", out, "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  const ProcessResult recorded = run(argv, dir.path());
  INFO(recorded.err);
  REQUIRE(recorded.exit_code == 0);
  const ProcessResult report = run({swprof_bin(), "report", out, "-f", "folded"}, dir.path());
  INFO(report.err);
  REQUIRE(report.exit_code == 0);
  std::map<std::string, uint64_t> stacks;
  std::istringstream lines(report.out);
  for (std::string line; std::getline(lines, line);) {
    const size_t space = line.rfind(' ');
    if (space != std::string::npos) stacks[line.substr(0, space)] += std::stoull(line.substr(space + 1));
  }
  return stacks;
}

// Samples whose stack begins (root first) with `prefix`, and all samples.
std::pair<uint64_t, uint64_t> share_starting(const std::map<std::string, uint64_t>& stacks, const std::string& prefix,
                                             std::string& listing) {
  uint64_t with = 0, all = 0;
  for (const auto& [stack, n] : stacks) {
    all += n;
    if (stack.starts_with(prefix)) with += n;
    listing += stack + " " + std::to_string(n) + "\n";
  }
  return {with, all};
}

}  // namespace

TEST_CASE("startup names: stripped glibc programs' stacks end _start -> __libc_start_main -> main",
          "[integration][symbolize]") {
  // Static: every start-up function is in the program. Dynamic: _start and
  // main are; __libc_start_main and its helper are libc.so.6's.
  const std::map<std::string, std::string> prefixes = {
      {"static", "_start;__libc_start_main;__libc_start_call_main;main;"},
      {"static_pie", "_start;__libc_start_main;__libc_start_call_main;main;"},
      {"pie", "_start;__libc_start_main"},
      {"nopie", "_start;__libc_start_main"},
  };
  for (const auto& [variant, prefix] : prefixes) {
    SECTION(variant) {
      const auto stacks =
          folded_stacks({std::string(KNOWN_STACK_DIR) + "/known_startup_" + variant + ".stripped", "0.5"});
      std::string listing;
      const auto [with, all] = share_starting(stacks, prefix, listing);
      INFO(listing);
      REQUIRE(all >= 100);
      CHECK(with * 100 >= all * 95);
      // main, named, calls the program's unnamed spin.
      uint64_t through_main = 0;
      for (const auto& [stack, n] : stacks)
        if (stack.find(";main;") != std::string::npos) through_main += n;
      CHECK(through_main * 100 >= all * 95);
    }
  }
}

TEST_CASE("startup names: a stripped static musl program's stacks end _start -> libc_start_main_stage2 -> main",
          "[integration][symbolize]") {
  // _start_c and __libc_start_main leave by tail jumps: main's caller is
  // libc_start_main_stage2, whose caller's return address is in _start.
  const std::string program = std::string(KNOWN_STACK_DIR) + "/known_startup_musl.stripped";
  if (!std::filesystem::exists(program)) {
    WARN("known_startup_musl was not built (musl-gcc is not installed); skipped");
    return;
  }
  const auto stacks = folded_stacks({program, "0.5"});
  std::string listing;
  const auto [with, all] = share_starting(stacks, "_start;libc_start_main_stage2;main;", listing);
  INFO(listing);
  REQUIRE(all >= 100);
  CHECK(with * 100 >= all * 95);
}

TEST_CASE("startup names: Debian's busybox-static running an applet", "[integration][symbolize]") {
  // busybox-static: a stripped static glibc binary, /bin/busybox.
  const std::string busybox = "/bin/busybox";
  if (!std::filesystem::exists(busybox) || !std::filesystem::exists("/usr/share/doc/busybox-static")) {
    WARN("busybox-static is not installed (scripts/setup.sh installs it); skipped");
    return;
  }
  const auto stacks = folded_stacks({busybox, "sh", "-c", "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done"});
  std::string listing;
  const auto [with, all] = share_starting(stacks, "_start;__libc_start_main;__libc_start_call_main;main;", listing);
  INFO(listing);
  REQUIRE(all >= 50);
  CHECK(with * 100 >= all * 95);
}
