// `swprof record` and `swprof attach`.

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/number_options.h"
#include "common/error.h"
#include "sampler/sampling_session.h"

namespace swprof::cli {
namespace {

struct SamplingArgs {
  std::string event = "cpu-clock";
  std::string frequency;
  std::string period;
  std::string stack_size = std::to_string(kDefaultStackSize);
  std::string buffer_size;
  bool no_inherit = false;
  bool kernel = false;
  bool no_kernel = false;
  std::string output = "swprof.data";
};

std::optional<uint64_t> parse_count(const std::string& text, const char* option) {
  if (text.empty()) return std::nullopt;
  size_t used = 0;
  uint64_t v = 0;
  try {
    if (text[0] == '-') throw std::invalid_argument("negative");
    v = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size()) throw Error(std::string("invalid ") + option + " '" + text + "': expected a whole number");
  return v;
}

void add_sampling_options(CLI::App* sub, SamplingArgs& a) {
  sub->add_option("-e,--event", a.event, "event to sample: cpu-clock (default), task-clock, page-faults, "
                                         "context-switches, cycles, instructions, ... (hardware events need a PMU)");
  sub->add_option("-F,--freq", a.frequency, "samples per second (default 999)");
  sub->add_option("-c,--count", a.period, "sample every N events instead of at a frequency");
  sub->add_option("--stack-size", a.stack_size, "bytes of user stack copied per sample (default 32768, max 65528, multiple of 8)");
  sub->add_option("--buffer-size", a.buffer_size, "ring buffer per CPU, e.g. 8M (power of two; default sized from the rate)");
  sub->add_flag("--kernel", a.kernel, "require kernel samples and callchains (default: on when permitted)");
  sub->add_flag("--no-kernel", a.no_kernel, "do not sample kernel mode");
  sub->add_option("-o,--output", a.output, "recording file (default swprof.data)");
}

SamplingOptions to_sampling_options(const SamplingArgs& a, bool inherit) {
  if (a.kernel && a.no_kernel) throw Error("--kernel and --no-kernel cannot be used together");
  std::optional<bool> kernel;
  if (a.kernel) kernel = true;
  if (a.no_kernel) kernel = false;
  auto stack = parse_count(a.stack_size, "--stack-size");
  uint64_t buffer = a.buffer_size.empty() ? 0 : parse_byte_size(a.buffer_size, "--buffer-size");
  return make_sampling_options(a.event, parse_count(a.frequency, "-F"), parse_count(a.period, "-c"),
                               stack.value_or(kDefaultStackSize), buffer, inherit, kernel);
}

void print_summary(const SessionSummary& s) { std::fputs(format_summary(s).c_str(), stderr); }

}  // namespace

std::vector<std::string>& command_after_dashdash() {
  static std::vector<std::string> command;
  return command;
}

bool& command_after_dashdash_given() {
  static bool given = false;
  return given;
}

std::function<int()> add_record_command(CLI::App& app) {
  auto* sub = app.add_subcommand("record", "run a command and record samples of it, its threads and children");
  auto args = std::make_shared<SamplingArgs>();
  add_sampling_options(sub, *args);
  sub->add_flag("--no-inherit", args->no_inherit, "sample only the command's main thread, not new threads or children");
  // The command and everything after its name belong to the command
  // (CLI11 leaves them in remaining(); a leading "--" is optional).
  sub->prefix_command();
  sub->allow_extras();
  sub->footer("COMMAND [ARGS...]: the program to run; put -- before it when it starts with '-'");
  return [sub, args]() {
    RecordRequest req;
    req.command = sub->remaining();
    if (command_after_dashdash_given()) {
      // "record -- CMD ARGS" or "record CMD ARGS -- MORE" (the command's own "--").
      if (!req.command.empty()) req.command.push_back("--");
      for (const auto& a : command_after_dashdash()) req.command.push_back(a);
    }
    if (req.command.empty()) throw Error("no command given; usage: swprof record [options] -- COMMAND [ARGS...]");
    req.sampling = to_sampling_options(*args, !args->no_inherit);
    req.output = args->output;
    req.progress = isatty(STDERR_FILENO);
    SessionSummary summary = run_record(req);
    print_summary(summary);
    return summary.has_wait_status ? exit_code_from_wait_status(summary.wait_status) : 0;
  };
}

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
    auto value = parse_count(*pid, "PID");
    if (!value || *value == 0 || *value > 4194304) throw Error("invalid PID '" + *pid + "'");
    req.pid = static_cast<pid_t>(*value);
    req.duration_s = *duration;
    req.sampling = to_sampling_options(*args, true);
    req.output = args->output;
    req.progress = isatty(STDERR_FILENO);
    print_summary(run_attach(req));
    return 0;
  };
}

}  // namespace swprof::cli
