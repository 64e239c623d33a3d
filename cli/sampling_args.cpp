#include "cli/sampling_args.h"

#include <unistd.h>

#include <cstdio>
#include <stdexcept>

#include "cli/cache_options.h"
#include "cli/command_outline.h"
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

void add_offcpu_args(const SamplingArgs& a, SamplingOptions& o) {
  if (a.off_cpu && a.wall)
    throw Error("--off-cpu and --wall cannot be used together: both record the same, --wall also weighs on-CPU time");
  if (!a.off_cpu && !a.wall) {
    for (const auto& [text, name] : {std::pair{&a.offcpu_stack_size, "--off-cpu-stack-size"},
                                     std::pair{&a.offcpu_every, "--off-cpu-every"}, std::pair{&a.offcpu_min, "--off-cpu-min"}})
      if (!text->empty()) throw Error(std::string(name) + " needs --off-cpu or --wall");
    return;
  }
  const uint64_t stack = parse_count(a.offcpu_stack_size, "--off-cpu-stack-size").value_or(kDefaultOffCpuStackSize);
  const uint64_t every = parse_count(a.offcpu_every, "--off-cpu-every").value_or(1);
  const uint64_t min_ns = a.offcpu_min.empty() ? kDefaultOffCpuMinNs : parse_duration_ns(a.offcpu_min, "--off-cpu-min");
  add_offcpu_options(o, a.wall, every, min_ns, stack);
}

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

namespace {

// A size such as 0, 64M or 1G given to `option`; nullopt for an empty text.
std::optional<uint64_t> parse_size_option(const std::string& text, const char* option) {
  if (text.empty()) return std::nullopt;
  if (text[0] == '-') throw Error(std::string("invalid ") + option + " '" + text + "': expected a size such as 0, 64M or 1G");
  return parse_byte_size(text, option);
}

}  // namespace

void add_sampling_options(CLI::App* sub, SamplingArgs& a) {
  sub->add_option("-e,--event", a.event, "event to sample: cpu-clock (default), task-clock, page-faults, "
                                         "context-switches, cycles, instructions, ... (hardware events need a PMU)")
      ->check(choices(known_event_names()));
  sub->add_option("-F,--freq", a.frequency, "samples per second (default 999)");
  sub->add_option("-c,--count", a.period, "sample every N events instead of at a frequency");
  sub->add_option("--stack-size", a.stack_size, "bytes of user stack copied per sample (default 32768, max 65528, multiple of 8)");
  sub->add_option("--stack-beyond", a.stack_beyond,
                  "bytes of user stack read past a cut copy from the live thread right after the sample, used "
                  "only where the copy's outermost frames still read the same (default and max 524288; 0 reads none)");
  sub->add_option("--buffer-size", a.buffer_size, "ring buffer per CPU, e.g. 8M (power of two; default sized from the rate)");
  sub->add_option("--embed-max", a.embed_max, "most bytes of binaries found only inside the target's mount namespace "
                                             "(a container) to embed into the recording (default 256M)");
  sub->add_option("--perf-map-max", a.perf_map_max, "most bytes of each process's JIT perf map to copy into the "
                                                   "recording (default 64M; all maps together at most 4 times that)");
  sub->add_flag("--kernel", a.kernel, "require kernel samples and callchains (default: on when permitted)");
  sub->add_flag("--no-kernel", a.no_kernel, "do not sample kernel mode");
  sub->add_option("-o,--output", a.output,
                  "recording file (default swprof.data), readable only by you; a file already there is kept as "
                  "FILE.old");
  sub->add_flag("--off-cpu", a.off_cpu, "also record where threads wait: a stack at every switch-out and the switch "
                                        "times (needs kernel sampling); reports weigh off-CPU time");
  sub->add_flag("--wall", a.wall, "as --off-cpu, but reports weigh wall-clock time (on-CPU + off-CPU)");
  sub->add_option("--off-cpu-stack-size", a.offcpu_stack_size,
                  "bytes of user stack copied per switch-out (default 8192, max 65528, multiple of 8)");
  sub->add_option("--off-cpu-every", a.offcpu_every, "copy a stack at every Nth switch-out of a thread (default 1)");
  sub->add_option("--off-cpu-min", a.offcpu_min,
                  "waits shorter than this whose stack repeats a recent one are written as a reference to it "
                  "(default 1ms; 0 writes every stack)");
  sub->add_flag("--no-cache", a.no_cache,
                "do not keep the binaries the samples hit in the build-id cache ($XDG_CACHE_HOME/swprof, "
                "default ~/.cache/swprof), where reports find them once they are rebuilt or deleted");
}

SamplingOptions to_sampling_options(const SamplingArgs& a, bool inherit) {
  if (a.kernel && a.no_kernel) throw Error("--kernel and --no-kernel cannot be used together");
  std::optional<bool> kernel;
  if (a.kernel) kernel = true;
  if (a.no_kernel) kernel = false;
  auto stack = parse_count(a.stack_size, "--stack-size");
  uint64_t buffer = a.buffer_size.empty() ? 0 : parse_byte_size(a.buffer_size, "--buffer-size");
  SamplingOptions o = make_sampling_options(a.event, parse_count(a.frequency, "-F"), parse_count(a.period, "-c"),
                                            stack.value_or(kDefaultStackSize), buffer, inherit, kernel);
  add_offcpu_args(a, o);
  if (auto bytes = parse_size_option(a.embed_max, "--embed-max")) o.embed_max_bytes = *bytes;
  if (auto beyond = parse_count(a.stack_beyond, "--stack-beyond")) {
    if (*beyond > kMaxStackBeyond)
      throw Error("invalid --stack-beyond '" + a.stack_beyond + "': expected a number of bytes from 0 to " +
                  std::to_string(kMaxStackBeyond));
    o.stack_beyond = static_cast<uint32_t>(*beyond);
  }
  if (auto bytes = parse_size_option(a.perf_map_max, "--perf-map-max")) o.perf_map_max_bytes = *bytes;
  return o;
}

SessionProgressFn stderr_progress() {
  if (!isatty(STDERR_FILENO)) return {};
  return print_progress;
}

void print_summary(const SessionSummary& s) { std::fputs(format_summary(s).c_str(), stderr); }

std::shared_ptr<BuildIdCache> session_build_id_cache(const SamplingArgs& args) {
  return args.no_cache ? nullptr : user_build_id_cache();
}

void finish_session(const SessionSummary& summary, const std::shared_ptr<BuildIdCache>& cache) {
  print_summary(summary);
  if (cache) keep_sampled_files(summary, *cache);
}

}  // namespace swprof::cli
