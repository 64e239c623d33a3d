#pragma once
// Options shared by the commands that unwind samples.

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "common/error.h"
#include "unwind/recording_unwinder.h"

namespace swprof::cli {

struct UnwindArgs {
  std::string unwinder = "chain";
  unsigned threads = 0;
  size_t max_depth = 256;

  void add_to(CLI::App* sub) {
    sub->add_option("--unwinder", unwinder, "chain (default: swprof's stepper chain) or libunwind (the reference)");
    sub->add_option("-j,--threads", threads, "unwinding threads besides the reading one (default: one per core but one)");
    sub->add_option("--max-depth", max_depth, "deepest stack to unwind (default 256)");
  }

  UnwindOptions to_options() const {
    UnwindOptions o;
    if (unwinder == "chain") o.unwinder = UnwinderChoice::kChain;
    else if (unwinder == "libunwind") o.unwinder = UnwinderChoice::kLibunwind;
    else throw Error("unknown --unwinder '" + unwinder + "': use chain or libunwind");
    if (max_depth < 1 || max_depth > 100000) throw Error("invalid --max-depth: between 1 and 100000");
    o.threads = threads;
    o.max_depth = max_depth;
    return o;
  }
};

}  // namespace swprof::cli
