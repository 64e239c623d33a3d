#pragma once
// Options of the commands that show a function's code (annotate, browse):
// where its source files are, and the syntax of its instructions.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/command_outline.h"
#include "output/annotate.h"

namespace swprof::cli {

struct SourceArgs {
  std::vector<std::string> source_dirs;
  std::vector<std::string> prefix_maps;
  std::string syntax = "att";

  void add_to(CLI::App* sub) {
    sub->add_option("--source-dir", source_dirs,
                    "look for source files under this folder too (repeatable): the path DWARF names, then each "
                    "shorter tail of it down to the file name")
        ->allow_extra_args(false);
    sub->add_option("--prefix-map", prefix_maps,
                    "OLD=NEW: read a source file named OLD/... from NEW/... (repeatable; the first that applies)")
        ->allow_extra_args(false);
    sub->add_option("--syntax", syntax, "instructions in att (default, as objdump and perf) or intel syntax")
        ->check(choices({"att", "intel"}));
  }

  // Sets the sources and the syntax of `o`; throws Error for a bad --prefix-map.
  void apply(AnnotateOptions& o) const {
    o.sources.dirs = source_dirs;
    for (const std::string& m : prefix_maps) o.sources.prefix_maps.push_back(parse_prefix_map(m, "--prefix-map"));
    o.syntax = syntax == "intel" ? AsmSyntax::kIntel : AsmSyntax::kAtt;
  }
};

}  // namespace swprof::cli
