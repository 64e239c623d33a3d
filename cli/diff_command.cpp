// `swprof diff BASE NEW`: the performance-regression gate for CI. Exit 0: no
// significant regression; 1: a regression; 2: an error.

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/command_outline.h"
#include "cli/commands.h"
#include "cli/number_options.h"
#include "cli/profile_options.h"
#include "common/same_file.h"
#include "common/text_escape.h"
#include "compare/diff.h"
#include "compare/diff_folded.h"
#include "compare/diff_format.h"
#include "compare/differential_flamegraph.h"
#include "output/output_file.h"
#include "profile/interrupts.h"

namespace swprof::cli {

std::function<int()> add_diff_command(CLI::App& app) {
  auto* sub = app.add_subcommand("diff", "compare two profiles: the regression gate for CI (exit 1 on a regression)");
  struct Args {
    std::string base, current;
    std::string format = "text";
    std::string output, html, folded;
    std::string fail_on = "total";
    size_t top = 10;
    bool keep_interrupts = false;
    DiffOptions diff;
    ProfileArgs profile;
  };
  auto a = std::make_shared<Args>();
  sub->add_option("base", a->base, "the reference: a recording or a JSON profile")->required();
  sub->add_option("new", a->current, "the change to judge: a recording or a JSON profile")->required();
  sub->add_option("-f,--format", a->format, "text (default), markdown or json")->check(choices(diff_format_names()));
  sub->add_option("-o,--output", a->output, "write the report here instead of standard output");
  sub->add_option("--html", a->html, "also write a differential flame graph (NEW's shape, red: more, blue: less)");
  sub->add_option("--folded", a->folded, "also write 'stack base_count new_count' lines (FlameGraph's difffolded format)");
  add_number(sub, "--threshold", a->diff.threshold_percent, {0},
             "relative change of a share, in %, that counts as a regression (default 5)");
  add_number(sub, "--min-share", a->diff.min_share_percent, {0, 100},
             "do not judge functions under this % of samples on both sides (default 1)");
  add_number(sub, "--min-samples", a->diff.min_samples, {0, 1e12, true},
             "do not judge functions with fewer samples than this on both sides (default 20)");
  add_number(sub, "--min-z", a->diff.min_z, {0}, "z statistic a change needs to be significant (default 4)");
  sub->add_option("--fail-on", a->fail_on, "which share's regression fails: self, total (default) or both");
  sub->add_option("--only", a->diff.only, "judge only functions whose name matches this regex");
  sub->add_flag("--ignore-modules", a->diff.ignore_modules,
                "match functions by name alone, whatever binary they are in: for a program built or installed "
                "under another name or path (kernel frames stay [kernel])");
  sub->add_flag("--keep-interrupts", a->keep_interrupts,
                "judge time in interrupt handlers as kernel functions (default: it counts for the code interrupted)");
  add_number(sub, "--top", a->top, {0, 1000000, true}, "rows per table in text and markdown (default 10)");
  a->profile.add_to(sub);
  return [a]() {
    const DiffFormat format = parse_diff_format(a->format);
    a->diff.fail_on = parse_fail_on(a->fail_on);
    if (a->profile.reverse) throw Error("diff compares root-first stacks: --reverse cannot be used");
    if (a->profile.per_thread)
      throw Error("diff matches calling contexts across runs, whose thread ids differ: --per-thread cannot be used");
    // Every output fails before any work when it is an input or cannot be written.
    const std::vector<std::string> inputs = a->profile.symbols.read_files({a->base, a->current});
    check_output_is_not_an_input(a->output, inputs);
    if (!a->html.empty()) check_output_is_not_an_input(a->html, inputs, "--html");
    if (!a->folded.empty()) check_output_is_not_an_input(a->folded, inputs, "--folded");
    OutputFile out(a->output);
    std::optional<OutputFile> html, folded;
    if (!a->html.empty()) html.emplace(a->html);
    if (!a->folded.empty()) folded.emplace(a->folded);

    a->profile.source_lines = !a->html.empty();  // only the flame graph shows file:line
    // Reports name the files given here (a JSON profile would name its recording).
    Profile base = load_profile(a->base, a->profile, "diff");
    base.source = a->base;
    Profile current = load_profile(a->current, a->profile, "diff");
    current.source = a->current;
    uint64_t base_interrupts = 0, current_interrupts = 0;
    if (!a->keep_interrupts) {
      base_interrupts = charge_interrupts_to_interrupted(base);
      current_interrupts = charge_interrupts_to_interrupted(current);
    }
    ProfileDiff diff = diff_profiles(base, current, a->diff);
    note_interrupts(diff, base, base_interrupts, current, current_interrupts);
    for (const auto& w : diff.warnings) std::fprintf(stderr, "swprof: warning: %s\n", terminal_safe(w).c_str());

    DiffReportOptions report;
    report.top = a->top;
    write_diff_report(diff, format, report, out.stream());
    if (folded) write_diff_folded(base.tree, current.tree, folded->stream());
    if (html) write_differential_flamegraph(diff, base, current, html->stream());
    out.commit();
    if (folded) folded->commit();
    if (html) html->commit();
    return diff.regressed() ? kExitRegression : kExitOk;
  };
}

}  // namespace swprof::cli
