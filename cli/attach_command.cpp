// `swprof attach PID`: record samples of a running process.

#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/number_options.h"
#include "cli/sampling_args.h"
#include "common/error.h"
#include "sampler/sampling_session.h"

namespace swprof::cli {
namespace {

// The largest pid Linux hands out (PID_MAX_LIMIT on 64-bit).
constexpr uint64_t kMaxPid = 4194304;

pid_t parse_pid(const std::string& text) {
  auto value = parse_count(text, "PID");
  if (!value || *value == 0 || *value > kMaxPid) throw Error("invalid PID '" + text + "'");
  return static_cast<pid_t>(*value);
}

}  // namespace

std::function<int()> add_attach_command(CLI::App& app) {
  auto* sub = app.add_subcommand("attach", "record samples of a running process until Ctrl-C, --duration or its exit");
  auto args = std::make_shared<SamplingArgs>();
  auto pid = std::make_shared<std::string>();
  auto duration = std::make_shared<double>(0);
  add_sampling_options(sub, *args);
  sub->add_option("pid", *pid, "the process to sample (all its threads, and threads it starts)")->required();
  add_number(sub, "-d,--duration", *duration, {0, kMaxAttachSeconds, false, true},
             "stop after this many seconds (at most a year; leave out to sample until Ctrl-C or the process exits)");
  return [args, pid, duration]() {
    AttachRequest req;
    req.pid = parse_pid(*pid);
    req.duration_s = *duration;
    req.sampling = to_sampling_options(*args, true);
    req.output = args->output;
    req.progress = stderr_progress();
    const std::shared_ptr<BuildIdCache> cache = session_build_id_cache(*args);
    finish_session(run_attach(req), cache);
    return 0;
  };
}

}  // namespace swprof::cli
