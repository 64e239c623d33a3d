#pragma once
// Options shared by the commands that name frames (report, flamegraph, diff,
// merge, script).

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/cache_options.h"
#include "recording/binary_archive.h"
#include "symbolize/symbolizer.h"

namespace swprof::cli {

// The files a command reads: `inputs`, and the archive of binaries their
// reports use (`archive` as --archive gives it, else each input's
// INPUT.archive), for check_output_is_not_an_input.
inline std::vector<std::string> with_archives(std::vector<std::string> inputs, const std::string& archive) {
  const size_t given = inputs.size();
  if (!archive.empty()) inputs.push_back(archive);
  else
    for (size_t i = 0; i < given; ++i) inputs.push_back(default_archive_path(inputs[i]));
  return inputs;
}

struct SymbolizeArgs {
  bool no_demangle = false;
  bool no_inline = false;
  bool debuginfod = false;
  std::vector<std::string> debug_dirs;
  std::string archive;
  bool no_cache = false;

  void add_to(CLI::App* sub) {
    sub->add_flag("--no-demangle", no_demangle, "keep C++ names mangled, as in the symbol table");
    sub->add_flag("--no-inline", no_inline, "do not show inlined functions as frames of their own");
    sub->add_option("--debug-dir", debug_dirs,
                    "also look for separate debuginfo under this root (.build-id/ and .gnu_debuglink; "
                    "repeatable; searched in order, before /usr/lib/debug)")
        ->allow_extra_args(false);  // one root per option: a recording after it stays the recording
    sub->add_option("--archive", archive,
                    "binaries and debuginfo for this recording (swprof archive), used where a binary is missing "
                    "or changed; default: RECORDING.archive when it exists");
    sub->add_flag("--no-cache", no_cache,
                  "neither read nor fill the build-id cache of binaries ($XDG_CACHE_HOME/swprof, "
                  "default ~/.cache/swprof), which reports use where a binary is missing or changed");
    sub->add_flag("--debuginfod", debuginfod,
                  "fetch missing debuginfo from the debuginfod servers in DEBUGINFOD_URLS (off by default: "
                  "never waits on the network)");
  }

  std::vector<std::string> read_files(std::vector<std::string> inputs) const {
    return with_archives(std::move(inputs), archive);
  }

  SymbolizerOptions to_options() const {
    SymbolizerOptions o;
    o.demangle = !no_demangle;
    o.inline_frames = !no_inline;
    o.debuginfod = debuginfod;
    o.debug_roots.insert(o.debug_roots.begin(), debug_dirs.begin(), debug_dirs.end());
    o.archive_path = archive;
    if (!no_cache) o.build_id_cache = user_build_id_cache();
    return o;
  }

  // elfutils asks the servers in DEBUGINFOD_URLS for debuginfo it does not
  // find on disk, and waits for them (90 s per file by default). Without
  // --debuginfod the variable is cleared for this process before any
  // symbol is looked up, as `perf --debuginfod` does. The environment is
  // the process's: a command applies this once, before its first input.
  void apply_debuginfod() const {
    const char* urls = std::getenv("DEBUGINFOD_URLS");
    if (!debuginfod) {
      if (urls) ::unsetenv("DEBUGINFOD_URLS");
    } else if (!urls || !*urls) {
      std::fprintf(stderr, "swprof: warning: --debuginfod: DEBUGINFOD_URLS is not set, no server to ask\n");
    }
  }
};

}  // namespace swprof::cli
