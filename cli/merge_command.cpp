// `swprof merge A B C... -o merged.json`: several runs of one benchmark
// pooled into one JSON profile.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/profile_options.h"
#include "common/same_file.h"
#include "common/text_escape.h"
#include "output/json_profile_writer.h"
#include "output/output_file.h"
#include "profile/merge.h"

namespace swprof::cli {

std::function<int()> add_merge_command(CLI::App& app) {
  auto* sub = app.add_subcommand("merge", "pool several recordings or JSON profiles of one program into a JSON profile");
  struct Args {
    std::vector<std::string> inputs;
    std::string output;
    ProfileArgs profile;
  };
  auto a = std::make_shared<Args>();
  sub->add_option("inputs", a->inputs, "recordings or JSON profiles")->required();
  sub->add_option("-o,--output", a->output, "write the merged JSON profile here instead of standard output");
  a->profile.add_to(sub);
  return [a]() {
    check_output_is_not_an_input(a->output, a->profile.symbols.read_files(a->inputs));
    OutputFile out(a->output);  // fails before any work when it cannot be written
    ProfileMerger merger;
    for (const auto& path : a->inputs) {
      Profile p = load_profile(path, a->profile, "merge");
      p.source = path;  // the merged profile lists the files given here
      merger.add(p);
    }
    for (const auto& w : merger.warnings()) std::fprintf(stderr, "swprof: warning: %s\n", terminal_safe(w).c_str());
    const Profile merged = merger.take();
    if (merged.samples_kept == 0) throw Error("nothing to merge: none of the inputs has samples");
    write_json_profile(merged, out.stream());
    out.commit();
    std::fprintf(stderr, "swprof merge: %zu profiles, %llu samples\n", a->inputs.size(),
                 static_cast<unsigned long long>(merged.samples_kept));
    return kExitOk;
  };
}

}  // namespace swprof::cli
