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
      {"FILES",
       "swprof.data: the recording record and attach write, and the other commands read, by default.\n\n"
       "$XDG_CACHE_HOME/swprof (~/.cache/swprof): the build-id cache, where record and attach keep the binaries "
       "their samples hit (and reports those their stacks pass through), with their separate debuginfo, by "
       "build-id; reports take a binary missing or rebuilt since from there. swprof cache lists, prunes and "
       "clears it; --no-cache leaves it alone."},
      {"ENVIRONMENT",
       "XDG_CACHE_HOME: where the build-id cache is (its swprof folder). SWPROF_CACHE_MAX_SIZE: the most the "
       "build-id cache keeps, e.g. 500M or 10G (default 2G); the least recently used binaries leave first. "
       "DEBUGINFOD_URLS: the debuginfod servers --debuginfod asks."},
      {"EXAMPLES",
       "Record a program, its threads and its children, then see where the time went:\n\n"
       "    swprof record -o app.swprof -- ./app --input big.txt\n"
       "    swprof report app.swprof\n\n"
       "Where inside the hottest functions the time goes, by source line and by instruction:\n\n"
       "    swprof annotate app.swprof\n"
       "    swprof annotate hash_buf app.swprof --source-dir ~/src/app\n\n"
       "An interactive flame graph, one HTML file to open in a browser:\n\n"
       "    swprof flamegraph app.swprof -o app.html\n\n"
       "Sample a running process for 10 seconds, also where its threads wait:\n\n"
       "    swprof attach 4242 --duration 10 --wall -o server.swprof\n\n"
       "A regression gate in CI: keep a small JSON profile of the base and of the change, and let diff's exit "
       "status decide (0: no significant regression, 1: a regression, 2: an error):\n\n"
       "    swprof report base.swprof -f json -o base.json\n"
       "    swprof report new.swprof -f json -o new.json\n"
       "    swprof diff base.json new.json -f markdown -o diff.md\n\n"
       "Every thread's stack of a live process, now:\n\n"
       "    swprof dump 4242\n\n"
       "A report of a perf.data file written by perf record:\n\n"
       "    perf record --call-graph dwarf -o perf.data ./app\n"
       "    swprof report perf.data\n\n"
       "Every sample as text, and the folded stacks that flamegraph.pl and other tools read:\n\n"
       "    swprof script app.swprof\n"
       "    swprof report app.swprof -f folded > app.folded\n\n"
       "What the build-id cache keeps, and a bound for it:\n\n"
       "    swprof cache list\n"
       "    swprof cache prune --max-size 500M"},
      {"SEE ALSO",
       "perf(1). The manual is in the documentation folder (/usr/share/doc/swprof when installed from the "
       "package): README.md, then docs/README.md, the index of a page per command and per topic, and the file "
       "formats."}};
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
