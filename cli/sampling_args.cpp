#include "cli/sampling_args.h"

#include <unistd.h>

#include <cstdio>
#include <stdexcept>

#include "common/error.h"

namespace swprof::cli {
namespace {

void print_progress(const SessionProgress& p) {
  if (p.done) {
    fprintf(stderr, "\r\033[K");
    return;
  }
  fprintf(stderr, "\r\033[Kswprof: %.1f s  %llu samples  %llu lost  %.1f MB", p.seconds,
          static_cast<unsigned long long>(p.samples), static_cast<unsigned long long>(p.lost),
          static_cast<double>(p.file_bytes) / 1e6);
}

}  // namespace

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
  sub->add_option("--embed-max", a.embed_max, "most bytes of binaries found only inside the target's mount namespace "
                                             "(a container) to embed into the recording (default 256M)");
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
  SamplingOptions options = make_sampling_options(a.event, parse_count(a.frequency, "-F"), parse_count(a.period, "-c"),
                                                  stack.value_or(kDefaultStackSize), buffer, inherit, kernel);
  if (!a.embed_max.empty()) {
    if (a.embed_max[0] == '-') throw Error("invalid --embed-max '" + a.embed_max + "': expected a size such as 0, 64M or 1G");
    options.embed_max_bytes = parse_byte_size(a.embed_max, "--embed-max");
  }
  return options;
}

SessionProgressFn stderr_progress() {
  if (!isatty(STDERR_FILENO)) return {};
  return print_progress;
}

void print_summary(const SessionSummary& s) { std::fputs(format_summary(s).c_str(), stderr); }

}  // namespace swprof::cli
