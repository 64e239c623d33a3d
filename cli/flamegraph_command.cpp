// `swprof flamegraph [FILE] -o out.html`: the interactive flame graph of a
// recording, a JSON profile or a folded-stacks file.

#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/number_options.h"
#include "cli/profile_options.h"
#include "common/same_file.h"
#include "output/flamegraph.h"
#include "output/flamegraph_labels.h"
#include "output/output_file.h"

namespace swprof::cli {

std::function<int()> add_flamegraph_command(CLI::App& app) {
  auto* sub = app.add_subcommand("flamegraph", "write an interactive flame graph (one self-contained HTML file)");
  struct Args {
    std::string path = "swprof.data";
    std::string output = "flamegraph.html";
    std::string title;
    bool icicle = false;
    double min_percent = 0;
    ProfileArgs profile;
  };
  auto a = std::make_shared<Args>();
  sub->add_option("file", a->path, "recording, JSON profile or folded stacks (default swprof.data)");
  sub->add_option("-o,--output", a->output, "HTML file to write (default flamegraph.html; - for stdout)");
  sub->add_option("--title", a->title, "title shown on the page (default: the profiled command)");
  sub->add_flag("--icicle", a->icicle, "start with the root at the top");
  add_number(sub, "--min-percent", a->min_percent, {0, 100},
             "leave out frames under this % of samples to make huge profiles smaller (default 0: keep all)");
  a->profile.add_to(sub);
  return [a]() {
    check_output_is_not_an_input(a->output, a->profile.symbols.read_files({a->path}));
    OutputFile out(a->output);  // fails before any work when it cannot be written
    FlamegraphOptions options;
    options.icicle = a->icicle;
    options.min_fraction = a->min_percent / 100.0;
    const ProfileInputFile input = open_profile_input(a->path);
    const InputKind kind = input.kind;
    a->profile.timeline = kind == InputKind::kRecording;  // the page's time order
    // Each function's source lines in the details panel (the leaves'
    // addresses: a hash probe per sample).
    if (kind == InputKind::kRecording) a->profile.addresses = AddressDetail::kLeaves;
    const Profile profile = load_profile(input, a->profile, "flamegraph", /*folded=*/true);
    const FlamegraphLabels labels = flamegraph_labels(profile, kind, a->title);
    options.title = labels.title;
    options.subtitle = labels.subtitle;
    options.reversed = profile.reversed;
    if (profile.weight_kind != WeightKind::kCpu) {
      options.off_cpu = true;
      options.unit = "nanoseconds";
    }
    options.source_lines = flamegraph_source_lines(profile, options.off_cpu);
    const CallTree& tree = profile.tree;
    if (tree.total() == 0) throw Error("no samples to draw" + std::string(a->profile.filters_given() ? " (the filters kept none)" : ""));
    write_flamegraph(profile, options, out.stream());
    out.commit();
    if (!a->output.empty() && a->output != "-") std::fprintf(stderr, "swprof flamegraph: wrote %s\n", a->output.c_str());
    return kExitOk;
  };
}

}  // namespace swprof::cli
