// `swprof record`: run a command and record samples of it.

#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/sampling_args.h"
#include "common/error.h"
#include "sampler/sampling_session.h"

namespace swprof::cli {
namespace {

// The command CLI11 left in `remaining`, then what followed "--":
// "record -- CMD ARGS" or "record CMD ARGS -- MORE" (the command's own "--").
std::vector<std::string> command_of(std::vector<std::string> remaining, const DashDash& dashdash) {
  if (!dashdash.given) return remaining;
  if (!remaining.empty()) remaining.push_back("--");
  remaining.insert(remaining.end(), dashdash.after.begin(), dashdash.after.end());
  return remaining;
}

}  // namespace

std::function<int()> add_record_command(CLI::App& app, DashDash dashdash) {
  auto* sub = app.add_subcommand("record", "run a command and record samples of it, its threads and children");
  auto args = std::make_shared<SamplingArgs>();
  add_sampling_options(sub, *args);
  sub->add_flag("--no-inherit", args->no_inherit, "sample only the command's main thread, not new threads or children");
  // The command and everything after its name belong to the command
  // (CLI11 leaves them in remaining(); a leading "--" is optional).
  sub->prefix_command();
  sub->allow_extras();
  sub->footer("COMMAND [ARGS...]: the program to run; put -- before it when it starts with '-'");
  return [sub, args, dashdash = std::move(dashdash)]() {
    RecordRequest req;
    req.command = command_of(sub->remaining(), dashdash);
    if (req.command.empty()) throw Error("no command given; usage: swprof record [options] -- COMMAND [ARGS...]");
    req.sampling = to_sampling_options(*args, !args->no_inherit);
    req.output = args->output;
    req.progress = stderr_progress();
    const std::shared_ptr<BuildIdCache> cache = session_build_id_cache(*args);
    SessionSummary summary = run_record(req);
    finish_session(summary, cache);
    return summary.has_wait_status ? exit_code_from_wait_status(summary.wait_status) : 0;
  };
}

}  // namespace swprof::cli
