#include "sampler/session_summary.h"

#include <sys/wait.h>

#include <cstdarg>
#include <cstdio>

#include "common/format.h"
#include "recording/recording_format.h"

namespace swprof {

int exit_code_from_wait_status(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

namespace {

using ull = unsigned long long;

// One line from a printf format, at most 511 bytes (a very long output path is cut).
[[gnu::format(printf, 1, 2)]] std::string format_line(const char* format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  vsnprintf(line, sizeof line, format, args);
  va_end(args);
  return line;
}

std::string totals_line(const SessionSummary& s) {
  std::string out = format_line("swprof: %.2f s, %llu %s, %llu samples (%s), written to %s (%s", s.duration_s,
                                static_cast<ull>(s.threads), s.threads == 1 ? "thread" : "threads",
                                static_cast<ull>(s.samples), s.end_reason.c_str(), s.output.c_str(),
                                human_bytes(s.file_bytes).c_str());
  if (s.samples)
    out += format_line(", %.0f bytes/sample", static_cast<double>(s.file_bytes) / static_cast<double>(s.samples));
  return out + ")\n";
}

std::string previous_line(const SessionSummary& s) {
  if (s.previous_recording.empty()) return {};
  return format_line("swprof: the previous recording is kept as %s\n", s.previous_recording.c_str());
}

// Too few samples to show anything: why, and what gives more. A command
// shorter than one sampling period (/bin/true runs for about a millisecond
// of CPU time) gets none.
std::string few_samples_line(const SessionSummary& s) {
  constexpr uint64_t kFew = 10;
  constexpr uint32_t kHigherFrequency = 10000;
  const uint64_t samples = s.samples + s.off_cpu_samples + s.off_cpu_repeats;
  // Losses have their own line; a dump's samples are as many as it asked for.
  if (samples >= kFew || s.lost || (!s.frequency && !s.period)) return {};
  const auto ran_ns = static_cast<uint64_t>(s.duration_s * 1e9);
  std::string out = !samples     ? std::string("swprof: no samples")
                    : samples == 1 ? std::string("swprof: only 1 sample")
                                   : format_line("swprof: only %llu samples", static_cast<ull>(samples));
  out += " in " + format_duration(ran_ns) + ": ";
  if (s.period)
    return out + format_line("-c %llu takes one sample per %llu events; try a smaller -c or a longer run\n",
                             static_cast<ull>(s.period), static_cast<ull>(s.period));
  if (!s.time_event) return out + "too few events happened; try a higher -F or a longer run\n";
  const uint64_t period_ns = 1'000'000'000 / s.frequency;
  out += format_line("-F %u samples a thread once per %s on a CPU", s.frequency, format_duration(period_ns).c_str());
  if (s.on_cpu_ns) out += ", and its threads were on one for " + format_duration(s.on_cpu_ns);
  out += s.frequency < kHigherFrequency ? format_line("; try -F %u or a longer run", kHigherFrequency)
                                        : std::string("; try a longer run");
  // Few samples in a long time: the threads mostly waited.
  if (ran_ns > kFew * period_ns && !s.off_cpu) out += ", or --off-cpu for where it waits";
  return out + "\n";
}

std::string kernel_mode_line(const SessionSummary& s) {
  if (!s.kernel_samples || !s.kernel_mode_samples) return {};
  return format_line("swprof: %llu %s (%.1f%%) landed in the kernel (syscalls, faults); kept with their user stacks\n",
                     static_cast<ull>(s.kernel_mode_samples), s.kernel_mode_samples == 1 ? "sample" : "samples",
                     percent(s.kernel_mode_samples, s.samples));
}

std::string lost_line(const SessionSummary& s) {
  if (!s.lost) return "swprof: 0 samples lost\n";
  return format_line("swprof: %llu samples lost (%.1f%%): lower -F or raise --buffer-size (now %s per CPU)\n",
                     static_cast<ull>(s.lost), percent(s.lost, s.samples + s.lost), human_bytes(s.ring_bytes).c_str());
}

std::string truncated_line(const SessionSummary& s) {
  if (!s.truncated) return {};
  if (s.stack_beyond)
    return format_line("swprof: %llu samples (%.1f%%) had their stack copy cut at --stack-size %u; %llu of them "
                       "(%.1f%%) were read on past the copy (up to --stack-beyond %u)\n",
                       static_cast<ull>(s.truncated), percent(s.truncated, s.samples), s.stack_size,
                       static_cast<ull>(s.extended), percent(s.extended, s.truncated), s.stack_beyond);
  if (s.stack_size >= kMaxStackSize)
    return format_line("swprof: %llu samples (%.1f%%) had their stack copy cut at --stack-size %u, the maximum: these "
                       "stacks are deeper than the kernel can copy\n",
                       static_cast<ull>(s.truncated), percent(s.truncated, s.samples), s.stack_size);
  return format_line("swprof: %llu samples (%.1f%%) had their stack copy cut at --stack-size %u; raise --stack-size (up "
                     "to %u) for complete stacks\n",
                     static_cast<ull>(s.truncated), percent(s.truncated, s.samples), s.stack_size, kMaxStackSize);
}

std::string at_page_line(const SessionSummary& s) {
  if (!s.extended_at_page) return {};
  return format_line("swprof: %llu samples (%.1f%%) had their stack copy ended by the kernel at a page it could not "
                     "read (not present); read on past it\n",
                     static_cast<ull>(s.extended_at_page), percent(s.extended_at_page, s.samples));
}

std::string throttles_line(const SessionSummary& s) {
  if (!s.throttles) return {};
  return format_line("swprof: the kernel throttled sampling %llu times (kernel.perf_event_max_sample_rate); lower -F\n",
                     static_cast<ull>(s.throttles));
}

std::string malformed_line(const SessionSummary& s) {
  if (!s.malformed) return {};
  return format_line("swprof: %llu malformed kernel records skipped\n", static_cast<ull>(s.malformed));
}

std::string offcpu_line(const SessionSummary& s) {
  if (!s.off_cpu) return {};
  std::string out = format_line("swprof: off-CPU: %llu switch-outs, %llu samples with stacks, %llu short waits as repeats of a "
                                "written stack, %llu lost",
                                static_cast<ull>(s.switch_outs), static_cast<ull>(s.off_cpu_samples),
                                static_cast<ull>(s.off_cpu_repeats), static_cast<ull>(s.off_cpu_lost));
  if (s.blocked_at_attach)
    out += format_line(", %llu threads already blocked at the attach", static_cast<ull>(s.blocked_at_attach));
  if (s.off_cpu_lost)
    out += format_line(": raise --buffer-size (now %s per CPU), --off-cpu-every or lower --off-cpu-stack-size",
                       human_bytes(s.offcpu_ring_bytes).c_str());
  return out + "\n";
}

std::string kernel_note_line(const SessionSummary& s) {
  return s.kernel_note.empty() ? std::string() : "swprof: note: " + s.kernel_note + "\n";
}

std::string embedded_lines(const SessionSummary& s) {
  std::string out;
  if (s.embedded_files)
    out += format_line("swprof: embedded %llu binaries found only inside the process's mount namespace (%s)\n",
                       static_cast<ull>(s.embedded_files), human_bytes(s.embedded_bytes).c_str());
  for (const std::string& w : s.warnings) out += "swprof: warning: " + w + "\n";
  return out;
}

}  // namespace

std::string format_summary(const SessionSummary& s) {
  return totals_line(s) + previous_line(s) + few_samples_line(s) + kernel_mode_line(s) + lost_line(s) +
         truncated_line(s) + at_page_line(s) + throttles_line(s) + malformed_line(s) + offcpu_line(s) + kernel_note_line(s) +
         embedded_lines(s);
}

}  // namespace swprof
