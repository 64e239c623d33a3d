#include "support/perf_runner.h"

#include <catch2/catch.hpp>
#include <filesystem>

namespace swprof::testing {
namespace {

const char* const kPerf = "/usr/bin/perf";

// The folder directly under /tmp that holds `path` ("swprof-check" for
// /tmp/swprof-check/build/...), empty when `path` is not under /tmp.
std::string folder_under_tmp(const std::string& path) {
  const std::filesystem::path relative = std::filesystem::weakly_canonical(path).lexically_relative("/tmp");
  if (relative.empty() || *relative.begin() == "..") return {};
  return relative.begin()->string();
}

}  // namespace

// When the programs perf runs are under /tmp (a checkout there), their
// folder there is bound back over an empty folder of the same name in `dir`
// before `dir` (with that mount) covers /tmp: perf runs and reads them at
// their paths.
ProcessResult run_perf(const TempDir& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {
      "/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
      "if [ -n \"$1\" ]; then mkdir -p \"$0/$1\" && mount --bind \"/tmp/$1\" \"$0/$1\" || exit 125; fi; "
      "mount --rbind \"$0\" /tmp && shift && exec \"$@\"",
      dir.path(), folder_under_tmp(KNOWN_STACK_DIR), "/usr/bin/env", "HOME=/tmp", kPerf};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, dir.path());
}

std::string perf_record(const TempDir& dir, const std::string& name, const std::vector<std::string>& options,
                        const std::vector<std::string>& command) {
  std::vector<std::string> args = {"record", "-N", "-q", "-F", "999", "-o", name};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back("--");
  args.insert(args.end(), command.begin(), command.end());
  const ProcessResult r = run_perf(dir, args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return dir.file(name);
}

}  // namespace swprof::testing
