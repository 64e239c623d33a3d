// `swprof archive FILE`: the binaries and debuginfo FILE's reports need, in
// FILE.archive (or -o PATH), for reports on another machine.

#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/symbolize_options.h"
#include "common/error.h"
#include "common/format.h"
#include "common/same_file.h"
#include "common/text_escape.h"
#include "profile/archive_builder.h"

namespace swprof::cli {
namespace {

void print_archive(const ArchiveResult& r) {
  uint64_t bytes = 0, binaries = 0, debuginfo = 0;
  for (const ArchivedFile& f : r.stored) {
    bytes += f.bytes;
    ++(f.debuginfo ? debuginfo : binaries);
  }
  for (const ArchivedFile& f : r.stored)
    std::printf("  %-9s %s (%s, build-id %s)\n", f.debuginfo ? "debuginfo" : "binary", terminal_safe(f.path).c_str(),
                human_bytes(f.bytes).c_str(), f.build_id.c_str());
  std::printf("stored %llu binaries and %llu debuginfo files (%s) in %s (%s)\n",
              static_cast<unsigned long long>(binaries), static_cast<unsigned long long>(debuginfo),
              human_bytes(bytes).c_str(), terminal_safe(r.output).c_str(), human_bytes(r.archive_bytes).c_str());
  for (const std::string& m : r.missing)
    std::fprintf(stderr, "swprof: warning: not archived, missing: %s\n", terminal_safe(m).c_str());
  for (const std::string& c : r.changed)
    std::fprintf(stderr, "swprof: warning: not archived, changed since it was recorded (another build-id): %s\n",
                 terminal_safe(c).c_str());
  for (const std::string& p : r.not_the_mapped_file)
    std::fprintf(stderr, "swprof: warning: not archived, not the file that was mapped (another device or inode): %s\n",
                 terminal_safe(p).c_str());
  for (const std::string& p : r.without_build_id)
    std::fprintf(stderr, "swprof: warning: not archived, the recording has no build-id for it: %s\n",
                 terminal_safe(p).c_str());
}

}  // namespace

std::function<int()> add_archive_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "archive", "copy the binaries and debuginfo a recording's reports need into FILE.archive, for another machine");
  auto path = std::make_shared<std::string>("swprof.data");
  auto output = std::make_shared<std::string>();
  auto symbolize = std::make_shared<SymbolizeArgs>();
  sub->add_option("file", *path, "recording file (default swprof.data)");
  sub->add_option("-o,--output", *output, "archive to write (default FILE.archive)");
  sub->add_option("--debug-dir", symbolize->debug_dirs,
                  "also look for separate debuginfo under this root (repeatable; before /usr/lib/debug)")
      ->allow_extra_args(false);  // one root per option: a recording after it stays the recording
  return [path, output, symbolize]() {
    check_output_is_not_an_input("", {*path});  // standard output: the list of what was stored
    symbolize->apply_debuginfod();
    ArchiveOptions options;
    options.output = *output;
    options.symbols = symbolize->to_options();
    print_archive(write_archive(*path, options));
    std::fflush(stdout);
    return kExitOk;
  };
}

}  // namespace swprof::cli
