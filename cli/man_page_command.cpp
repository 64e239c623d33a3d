// `swprof man-page`: the swprof(1) man page in roff (hidden; the build
// writes the file that is installed).

#include <memory>
#include <string>

#include "cli/command_outline.h"
#include "cli/commands.h"
#include "cli/man_page.h"
#include "common/error.h"
#include "output/output_file.h"

namespace swprof::cli {
namespace {

ManPageText man_page_text(const CLI::App& app) {
  ManPageText t;
  t.summary = description_without_name(app);
  t.version = std::string("swprof ") + SWPROF_VERSION;
  t.description = {
      "swprof samples native programs (C, C++, Rust, Go, anything ELF) with the kernel's perf_event_open, copying "
      "the user registers and the top of the user stack at every sample into a compact, crash-safe recording "
      "(swprof.data by default). The stacks are unwound and symbolized afterwards, when a report is made: as text, "
      "folded stacks, JSON, speedscope or a self-contained flame graph page, and compared between two runs with "
      "swprof diff.",
      "Typical use: swprof record ./myapp args, then swprof report, or swprof flamegraph -o myapp.html."};
  t.sections = {
      {"EXIT STATUS",
       "0 on success (record: the recorded command's own exit status; diff: no significant regression), 1 (diff "
       "only) a regression, 2 bad input or a failed set-up. Every error is one line on standard error."},
      {"FILES", "swprof.data: the recording record and attach write, and the other commands read, by default."},
      {"SEE ALSO",
       "perf(1). The full manual is README.md in the documentation folder (/usr/share/doc/swprof when "
       "installed from the package), with the file formats in its docs folder."}};
  return t;
}

}  // namespace

std::function<int()> add_man_page_command(CLI::App& app) {
  auto* sub = app.add_subcommand("man-page", "print the man page in roff");
  sub->group("");  // hidden: for packagers and the build
  auto output = std::make_shared<std::string>();
  sub->add_option("-o,--output", *output, "write here instead of standard output");
  return [&app, output]() {
    OutputFile out(*output);
    out.stream() << man_page(outline_of(app), man_page_text(app));
    out.commit();
    return kExitOk;
  };
}

}  // namespace swprof::cli
