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

void print_files(const std::vector<ArchivedFile>& files, const char* note) {
  for (const ArchivedFile& f : files)
    std::printf("  %-9s %s (%s%s%s, build-id %s)\n", f.debuginfo ? "debuginfo" : "binary", terminal_safe(f.path).c_str(),
                note, f.from_cache ? "from the build-id cache, " : "", human_bytes(f.bytes).c_str(), f.build_id.c_str());
}

void warn_each(const std::vector<std::string>& items, const char* what) {
  for (const std::string& item : items)
    std::fprintf(stderr, "swprof: warning: not archived, %s: %s\n", what, terminal_safe(item).c_str());
}

void print_archive(const ArchiveResult& r) {
  uint64_t bytes = 0, binaries = 0, debuginfo = 0;
  for (const auto* files : {&r.stored, &r.kept})
    for (const ArchivedFile& f : *files) {
      bytes += f.bytes;
      ++(f.debuginfo ? debuginfo : binaries);
    }
  print_files(r.stored, "");
  print_files(r.kept, "kept from the archive replaced, ");
  std::printf("stored %llu binaries and %llu debuginfo files (%s) in %s (%s)", static_cast<unsigned long long>(binaries),
              static_cast<unsigned long long>(debuginfo), human_bytes(bytes).c_str(), terminal_safe(r.output).c_str(),
              human_bytes(r.archive_bytes).c_str());
  if (!r.kept.empty()) std::printf("; %zu kept from the archive replaced", r.kept.size());
  std::printf("\n");
  if (!r.previous_problem.empty())
    std::fprintf(stderr, "swprof: warning: %s: replaced, nothing of it kept\n", terminal_safe(r.previous_problem).c_str());
  warn_each(r.missing, "missing");
  warn_each(r.changed, "changed since it was recorded (another build-id)");
  warn_each(r.not_the_mapped_file, "not the file that was mapped (another device or inode)");
  warn_each(r.without_build_id, "the recording has no build-id for it");
  warn_each(r.refused, "refused");
  warn_each(r.skipped, "skipped");
}

}  // namespace

std::function<int()> add_archive_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "archive", "copy the binaries and debuginfo a recording's reports need into FILE.archive, for another machine");
  auto path = std::make_shared<std::string>("swprof.data");
  auto output = std::make_shared<std::string>();
  auto symbolize = std::make_shared<SymbolizeArgs>();
  auto no_cache = std::make_shared<bool>(false);
  sub->add_option("file", *path, "recording file (default swprof.data)");
  sub->add_option("-o,--output", *output, "archive to write (default FILE.archive)");
  sub->add_option("--debug-dir", symbolize->debug_dirs,
                  "also look for separate debuginfo under this root (repeatable; before /usr/lib/debug)")
      ->allow_extra_args(false);  // one root per option: a recording after it stays the recording
  sub->add_flag("--no-cache", *no_cache,
                "do not take binaries missing or changed here from the build-id cache ($XDG_CACHE_HOME/swprof)");
  return [path, output, symbolize, no_cache]() {
    check_output_is_not_an_input("", {*path});  // standard output: the list of what was stored
    symbolize->apply_debuginfod();
    ArchiveOptions options;
    options.output = *output;
    symbolize->no_cache = *no_cache;
    options.symbols = symbolize->to_options();
    print_archive(write_archive(*path, options));
    std::fflush(stdout);
    return kExitOk;
  };
}

}  // namespace swprof::cli
