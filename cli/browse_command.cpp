// `swprof browse [FILE]`: a profile in an interactive terminal browser
// (docs/browse.md).

#include <unistd.h>

#include <memory>
#include <string>
#include <utility>

#include "cli/command_outline.h"
#include "cli/commands.h"
#include "cli/profile_options.h"
#include "cli/source_options.h"
#include "tui/browse.h"
#include "tui/terminal.h"

namespace swprof::cli {
namespace {

struct BrowseArgs {
  std::string path = "swprof.data";
  std::string inlined = "merge";
  SourceArgs sources;
  ProfileArgs profile;
};

// Checked before any work: a bad --inlined or --prefix-map fails at once.
tui::BrowseOptions browse_options(const BrowseArgs& a) {
  tui::BrowseOptions o;
  o.inlined = parse_inline_rows(a.inlined);
  o.annotate.symbols = a.profile.to_options().symbols;
  a.sources.apply(o.annotate);
  return o;
}

}  // namespace

std::function<int()> add_browse_command(CLI::App& app) {
  auto* sub = app.add_subcommand("browse", "a profile in an interactive terminal browser (top functions, tree, callers, annotate)");
  auto a = std::make_shared<BrowseArgs>();
  sub->add_option("file", a->path, "recording, perf.data file or JSON profile (default swprof.data)");
  sub->add_option("--inlined", a->inlined,
                  "top functions: rows of inlined functions: merge (default: one row with the out-of-line copies), "
                  "caller (counted for the function they were inlined into) or separate")
      ->check(choices(inline_rows_names()));
  a->sources.add_to(sub);
  a->profile.add_to(sub);
  return [a]() {
    for (const auto& [fd, name] : {std::pair{STDOUT_FILENO, "output"}, std::pair{STDIN_FILENO, "input"}})
      if (!isatty(fd))
        throw Error(std::string("browse needs a terminal, and its standard ") + name +
                    " is not one (for a text report: swprof report)");
    tui::check_terminal();
    const tui::BrowseOptions options = browse_options(*a);
    const ProfileInputFile input = open_profile_input(a->path);
    const InputKind kind = input.kind;
    ProfileArgs args = a->profile;
    args.source_lines = false;  // annotate reads the lines it shows itself
    if (kind == InputKind::kRecording) args.addresses = AddressDetail::kLeaves;  // for annotate
    args.announce_loading = true;
    const Profile profile = load_profile(input, args, "browse");
    tui::browse(profile, options);
    return kExitOk;
  };
}

}  // namespace swprof::cli
