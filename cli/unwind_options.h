#pragma once
// Options shared by the commands that unwind samples.

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "cli/command_outline.h"
#include "cli/number_options.h"
#include "common/error.h"
#include "unwind/recording_unwinder.h"

namespace swprof::cli {

struct UnwindArgs {
  static constexpr double kMaxThreads = 256;  // each worker keeps its own caches

  std::string unwinder = "chain";
  unsigned threads = 0;
  size_t max_depth = kDefaultMaxDepth;

  void add_to(CLI::App* sub) {
    sub->add_option("--unwinder", unwinder, "chain (default: swprof's stepper chain) or libunwind (the reference)")
        ->check(choices({"chain", "libunwind"}));
    add_number(sub, "-j,--threads", threads, {0, kMaxThreads, true},
               "unwinding threads besides the reading one, at most 256 (default or 0: one per core but one)");
    add_number(sub, "--max-depth", max_depth, {1, 100000, true},
               "deepest stack to unwind, in frames (default " + std::to_string(kDefaultMaxDepth) + ", at most 100000)");
  }

  UnwindOptions to_options() const {
    UnwindOptions o;
    if (unwinder == "chain") o.unwinder = UnwinderChoice::kChain;
    else if (unwinder == "libunwind") o.unwinder = UnwinderChoice::kLibunwind;
    else throw Error("unknown --unwinder '" + unwinder + "': use chain or libunwind");
    o.threads = threads;
    o.max_depth = max_depth;
    return o;
  }
};

}  // namespace swprof::cli
