// `swprof annotate [FUNCTION] [FILE]`: a function's samples by source line
// and by instruction (docs/annotate.md).

#include <memory>
#include <string>
#include <vector>

#include "cli/command_outline.h"
#include "cli/commands.h"
#include "cli/number_options.h"
#include "cli/profile_options.h"
#include "cli/source_options.h"
#include "output/annotate_writer.h"
#include "output/output_file.h"
#include "profile/name_filter.h"

namespace swprof::cli {
namespace {

struct AnnotateArgs {
  std::string function;
  std::string path = "swprof.data";
  std::string format = "text";
  std::string output;
  size_t top = 5;
  SourceArgs sources;
  std::vector<uint32_t> tids;
  std::vector<std::string> comms;
  double from = -1, to = -1;
  bool no_kernel = false;
  SymbolizeArgs symbols;
};

bool is_recording(const std::string& path) {
  try {
    return detect_input(path) == InputKind::kRecording;
  } catch (const Error&) {
    return false;  // no readable file: a function pattern
  }
}

// FUNCTION and FILE in either order: an argument that names a recording is
// the FILE (one argument alone is the FUNCTION otherwise).
void resolve_arguments(AnnotateArgs& a, bool file_given) {
  if (a.function.empty() || !is_recording(a.function)) return;
  if (!file_given) {
    a.path = a.function;
    a.function.clear();
  } else if (!is_recording(a.path)) {
    std::swap(a.function, a.path);
  }
}

ProfileArgs profile_args(const AnnotateArgs& a) {
  ProfileArgs p;
  p.tids = a.tids;
  p.comms = a.comms;
  p.from = a.from;
  p.to = a.to;
  p.no_kernel = a.no_kernel;
  p.symbols = a.symbols;
  p.addresses = AddressDetail::kLeaves;
  p.leaf_only = true;
  return p;
}

// Checked before any work: the pattern and the prefix maps.
AnnotateOptions annotate_options(const AnnotateArgs& a, const ProfileArgs& p) {
  AnnotateOptions o;
  o.function = a.function;
  if (!o.function.empty()) NameFilter(o.function, "function");
  o.top = a.top;
  o.symbols = p.to_options().symbols;
  a.sources.apply(o);
  return o;
}

}  // namespace

std::function<int()> add_annotate_command(CLI::App& app) {
  auto* sub = app.add_subcommand("annotate", "a function's samples by source line and by instruction");
  auto a = std::make_shared<AnnotateArgs>();
  sub->add_option("function", a->function,
                  "function name pattern (RE2, as --include's); default: the hottest functions (--top)");
  auto* file = sub->add_option("file", a->path, "recording or perf.data file (default swprof.data); the two arguments in either order");
  sub->add_option("-f,--format", a->format, "text (default) or json")->check(choices({"text", "json"}));
  sub->add_option("-o,--output", a->output, "write here instead of standard output");
  add_number(sub, "--top", a->top, {1, 1000000, true}, "functions shown, the hottest first (default 5)");
  a->sources.add_to(sub);
  sub->add_option("--tid", a->tids, "keep only these threads (repeat or comma-separate)")->delimiter(',');
  sub->add_option("--comm", a->comms, "keep only threads with these names (repeat or comma-separate)")->delimiter(',');
  add_number(sub, "--from", a->from, {0}, "keep samples from this many seconds after the recording started");
  add_number(sub, "--to", a->to, {0}, "keep samples up to this many seconds after the recording started");
  sub->add_flag("--no-kernel", a->no_kernel, "charge samples in the kernel to the user code that entered it");
  a->symbols.add_to(sub);
  return [a, file]() {
    resolve_arguments(*a, file->count() > 0);
    OutputFile out(a->output);  // fails before any work when it cannot be written
    const ProfileInputFile input = open_profile_input(a->path);
    const InputKind kind = input.kind;
    if (kind != InputKind::kRecording)
      throw Error("annotate reads a recording (swprof record, perf record); '" + a->path + "' is a profile without addresses");
    ProfileArgs args = profile_args(*a);
    const AnnotateOptions options = annotate_options(*a, args);
    const Profile profile = load_profile(input, args, "annotate");
    const Annotation annotation = annotate(profile, options);
    if (a->format == "json") write_annotation_json(annotation, out.stream());
    else write_annotation_text(profile, annotation, out.stream());
    out.commit();
    return kExitOk;
  };
}

}  // namespace swprof::cli
