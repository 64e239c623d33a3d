// `swprof report [FILE]`: text, folded, JSON, speedscope or pprof from a
// recording or a JSON profile.

#include <unistd.h>

#include <memory>
#include <optional>
#include <string>

#include "cli/command_outline.h"
#include "cli/commands.h"
#include "cli/number_options.h"
#include "cli/profile_options.h"
#include "cli/terminal_width.h"
#include "common/same_file.h"
#include "output/context_stack.h"
#include "output/output_file.h"
#include "output/report.h"

namespace swprof::cli {
namespace {

struct ReportArgs {
  std::string path = "swprof.data";
  std::string format = "text";
  std::string output;
  double min_percent = 0.5;
  size_t top = 25;
  double width = -1;  // -1: not given
  size_t tree_depth = 0;
  std::string inlined = "merge";
  bool modules = false;
  std::string context_id;
  ProfileArgs profile;
};

// Checked before any work: a bad --width or --inlined fails at once.
TextReportOptions text_options(const ReportArgs& a) {
  TextReportOptions o;
  o.min_percent = a.min_percent;
  o.top = a.top;
  const std::optional<size_t> width = a.width < 0 ? std::nullopt : std::optional(static_cast<size_t>(a.width));
  o.width = report_width(width, a.output.empty() || a.output == "-");
  o.tree_depth = a.tree_depth;
  o.inlined = parse_inline_rows(a.inlined);
  return o;
}

void write_report(const Profile& profile, ReportFormat format, const ReportArgs& a, std::ostream& out) {
  switch (format) {
    case ReportFormat::kText: write_text_report(profile, text_options(a), out); break;
    case ReportFormat::kFolded: {
      FoldedOptions o;
      o.modules = a.modules;
      o.weights = profile.weight_kind != WeightKind::kCpu;  // an off-CPU sample stands for a whole wait
      write_folded(profile.tree, o, out);
      break;
    }
    case ReportFormat::kJson: write_json_profile(profile, out); break;
    case ReportFormat::kSpeedscope: write_speedscope(profile, out); break;
    case ReportFormat::kPprof: write_pprof(profile, out); break;
  }
}

// pprof is gzipped binary: not for a terminal.
void check_binary_destination(ReportFormat format, const std::string& output) {
  if (format == ReportFormat::kPprof && (output.empty() || output == "-") && isatty(STDOUT_FILENO))
    throw Error("pprof output is binary: write it to a file with -o FILE (e.g. -o prof.pb.gz) or redirect it");
}

}  // namespace

std::function<int()> add_report_command(CLI::App& app) {
  auto* sub = app.add_subcommand("report", "summarize a recording: text report, folded stacks, JSON, speedscope or pprof");
  auto a = std::make_shared<ReportArgs>();
  sub->add_option("file", a->path, "recording or JSON profile (default swprof.data)");
  sub->add_option("-f,--format", a->format,
                  "text (default), folded, json, speedscope or pprof (gzipped profile.proto, for go tool pprof, "
                  "Pyroscope, Parca, Grafana)")
      ->check(choices(report_format_names()));
  sub->add_option("-o,--output", a->output, "write here instead of standard output");
  add_number(sub, "--min-percent", a->min_percent, {0, 100}, "text: hide tree nodes under this % of samples (default 0.5)");
  add_number(sub, "--top", a->top, {0, 1000000, true}, "text: rows in the top-functions table (default 25)");
  add_number(sub, "--width", a->width, {0, 100000, true},
             "text: columns every line fits in, names shortened in the middle (default: COLUMNS, else the "
             "terminal's width; no limit when piped or written to a file; 0: no limit)");
  add_number(sub, "--tree-depth", a->tree_depth, {0, 1000000, true},
             "text: tree levels shown, deeper calls folded into one line (default 0: all)");
  sub->add_option("--inlined", a->inlined,
                  "text: top-table rows of inlined functions: merge (default: one row with the out-of-line copies, "
                  "the inlined share shown), caller (counted for the function they were inlined into) or separate")
      ->check(choices(inline_rows_names()));
  sub->add_flag("--modules", a->modules, "folded: write frames as module`function");
  sub->add_option("--context-id", a->context_id, "print the stack of this calling-context id instead of a report");
  a->profile.add_to(sub);
  return [a]() {
    const ReportFormat format = parse_report_format(a->format);
    const bool by_context = !a->context_id.empty();
    const uint64_t context_id = by_context ? parse_context_id(a->context_id) : 0;
    if (!by_context) check_binary_destination(format, a->output);
    check_output_is_not_an_input(a->output, a->profile.symbols.read_files({a->path}));
    if (format == ReportFormat::kText) text_options(*a);
    OutputFile out(a->output);  // fails before any work when it cannot be written
    const ProfileInputFile input = open_profile_input(a->path);
    const InputKind kind = input.kind;
    ProfileArgs args = a->profile;
    // speedscope has one profile per thread, its samples in time order;
    // pprof labels each sample with its thread.
    const bool by_thread = format == ReportFormat::kSpeedscope || format == ReportFormat::kPprof;
    if (by_thread && !args.thread_names && kind == InputKind::kRecording) args.per_thread = true;
    if (format == ReportFormat::kSpeedscope && kind == InputKind::kRecording) args.timeline = !by_context;
    args.source_lines = by_context || shows_source_lines(format);  // a context's stack shows file:line
    // pprof's locations are addresses, each with its lines (-list, -disasm).
    if (format == ReportFormat::kPprof && !by_context && kind == InputKind::kRecording)
      args.addresses = AddressDetail::kStacks;
    const Profile profile = load_profile(input, args, "report");
    if (by_context) write_context_stack(profile, context_id, out.stream());
    else write_report(profile, format, *a, out.stream());
    out.commit();
    return kExitOk;
  };
}

}  // namespace swprof::cli
