#include "sampler/session_summary.h"

#include <sys/wait.h>

#include <catch2/catch.hpp>

#include "recording/recording_format.h"

using namespace swprof;

namespace {

SessionSummary quiet_summary() {
  SessionSummary s;
  s.output = "out.swprof";
  s.end_reason = "exited";
  s.duration_s = 1.234;
  s.samples = 1000;
  s.threads = 2;
  s.file_bytes = 2 << 20;
  s.ring_bytes = 1 << 20;
  s.stack_size = 32768;
  s.frequency = 999;
  s.time_event = true;
  return s;
}

}  // namespace

TEST_CASE("the summary of a clean session is two lines", "[summary]") {
  CHECK(format_summary(quiet_summary()) ==
        "swprof: 1.23 s, 2 threads, 1000 samples (exited), written to out.swprof (2.0 MB, 2097 bytes/sample)\n"
        "swprof: 0 samples lost\n");
  SessionSummary empty = quiet_summary();
  empty.samples = 0;
  CHECK(format_summary(empty).find("bytes/sample") == std::string::npos);
}

TEST_CASE("the summary says where the previous recording is kept", "[summary]") {
  SessionSummary s = quiet_summary();
  s.previous_recording = "out.swprof.old";
  CHECK(format_summary(s) ==
        "swprof: 1.23 s, 2 threads, 1000 samples (exited), written to out.swprof (2.0 MB, 2097 bytes/sample)\n"
        "swprof: the previous recording is kept as out.swprof.old\n"
        "swprof: 0 samples lost\n");
}

TEST_CASE("the summary names every problem of a session, one line each", "[summary]") {
  SessionSummary s = quiet_summary();
  s.kernel_samples = true;
  s.kernel_mode_samples = 100;
  s.lost = 1000;
  s.truncated = 50;
  s.throttles = 3;
  s.malformed = 4;
  s.kernel_note = "kernel samples off";
  CHECK(format_summary(s) ==
        "swprof: 1.23 s, 2 threads, 1000 samples (exited), written to out.swprof (2.0 MB, 2097 bytes/sample)\n"
        "swprof: 100 samples (10.0%) landed in the kernel (syscalls, faults); kept with their user stacks\n"
        "swprof: 1000 samples lost (50.0%): lower -F or raise --buffer-size (now 1.0 MB per CPU)\n"
        "swprof: 50 samples (5.0%) had their stack copy cut at --stack-size 32768; raise --stack-size (up to 65528) "
        "for complete stacks\n"
        "swprof: the kernel throttled sampling 3 times (kernel.perf_event_max_sample_rate); lower -F\n"
        "swprof: 4 malformed kernel records skipped\n"
        "swprof: note: kernel samples off\n");
  s.kernel_samples = false;  // kernel-mode samples are only mentioned when kernel sampling was on
  CHECK(format_summary(s).find("landed in the kernel") == std::string::npos);
}

TEST_CASE("a command's wait status becomes a shell's exit code", "[summary]") {
  CHECK(exit_code_from_wait_status(0) == 0);
  CHECK(exit_code_from_wait_status(3 << 8) == 3);
  CHECK(exit_code_from_wait_status(SIGKILL) == 128 + SIGKILL);
}

namespace {

SessionSummary summary_with(uint32_t stack_size, uint64_t samples, uint64_t truncated) {
  SessionSummary s;
  s.output = "out.swprof";
  s.end_reason = "exited";
  s.samples = samples;
  s.truncated = truncated;
  s.stack_size = stack_size;
  return s;
}

}  // namespace

TEST_CASE("summary: cut stacks advise a larger --stack-size only below the maximum", "[recording_info]") {
  const std::string below = format_summary(summary_with(32768, 100, 10));
  CHECK(below.find("cut at --stack-size 32768; raise --stack-size (up to 65528)") != std::string::npos);
  const std::string at_max = format_summary(summary_with(kMaxStackSize, 100, 10));
  CHECK(at_max.find("cut at --stack-size 65528, the maximum: these stacks are deeper than the kernel can copy") !=
        std::string::npos);
  CHECK(at_max.find("raise --stack-size") == std::string::npos);
  CHECK(format_summary(summary_with(32768, 100, 0)).find("stack copy") == std::string::npos);
}

TEST_CASE("summary: with --stack-beyond, cut stacks say how many were read on past the copy", "[recording_info]") {
  SessionSummary s = summary_with(32768, 100, 10);
  s.stack_beyond = 196608;
  s.extended = 9;
  CHECK(format_summary(s).find("swprof: 10 samples (10.0%) had their stack copy cut at --stack-size 32768; 9 of them "
                               "(90.0%) were read on past the copy (up to --stack-beyond 196608)\n") !=
        std::string::npos);
  CHECK(format_summary(s).find("raise --stack-size") == std::string::npos);
}

TEST_CASE("summary: copies the kernel ended at a page it could not read, read on past it, have a line", "[recording_info]") {
  SessionSummary s = summary_with(32768, 200, 0);
  s.stack_beyond = 196608;
  CHECK(format_summary(s).find("not present") == std::string::npos);
  s.extended_at_page = 5;
  CHECK(format_summary(s).find("swprof: 5 samples (2.5%) had their stack copy ended by the kernel at a page it could "
                               "not read (not present); read on past it\n") != std::string::npos);
}

TEST_CASE("an off-CPU session adds one line with its switch-outs, samples, repeats and losses", "[summary]") {
  SessionSummary s = quiet_summary();
  CHECK(format_summary(s).find("off-CPU") == std::string::npos);
  s.off_cpu = true;
  s.switch_outs = 300;
  s.off_cpu_samples = 120;
  s.off_cpu_repeats = 180;
  s.offcpu_ring_bytes = 16 << 20;
  const std::string text = format_summary(s);
  CHECK(text.find("swprof: off-CPU: 300 switch-outs, 120 samples with stacks, 180 short waits as repeats of a written "
                  "stack, 0 lost\n") != std::string::npos);
  CHECK(text.find("raise --buffer-size") == std::string::npos);
  s.off_cpu_lost = 7;
  CHECK(format_summary(s).find("7 lost: raise --buffer-size (now 16.0 MB per CPU)") != std::string::npos);
}

TEST_CASE("a session with too few samples says why and what gives more", "[summary]") {
  SessionSummary s = quiet_summary();
  s.threads = 1;
  s.samples = 0;
  s.duration_s = 0.0006;  // /bin/true: shorter than one sampling period
  CHECK(format_summary(s) ==
        "swprof: 0.00 s, 1 thread, 0 samples (exited), written to out.swprof (2.0 MB)\n"
        "swprof: no samples in 600.000 us: -F 999 samples a thread once per 1.001 ms on a CPU; try -F 10000 or a "
        "longer run\n"
        "swprof: 0 samples lost\n");
  s.samples = 1;
  CHECK(format_summary(s).find("swprof: only 1 sample in 600.000 us: ") != std::string::npos);
  s.frequency = 20000;
  s.duration_s = 0.0003;
  CHECK(format_summary(s).find("once per 50.000 us on a CPU; try a longer run\n") != std::string::npos);

  s.frequency = 999;
  s.samples = 0;
  s.duration_s = 0.0129;  // a loaded machine: most of it waiting for a CPU
  s.on_cpu_ns = 512'000;
  CHECK(format_summary(s).find("swprof: no samples in 12.900 ms: -F 999 samples a thread once per 1.001 ms on a CPU, and "
                               "its threads were on one for 512.000 us; try -F 10000 or a longer run, or --off-cpu for "
                               "where it waits\n") != std::string::npos);
  s.on_cpu_ns = 0;
  s.samples = 3;
  s.duration_s = 2;  // long enough for many: it waited
  CHECK(format_summary(s).find("swprof: only 3 samples in 2.000 s: -F 999 samples a thread once per 1.001 ms on a CPU; "
                               "try -F 10000 or a longer run, or --off-cpu for where it waits\n") != std::string::npos);
  s.off_cpu = true;  // it already does
  CHECK(format_summary(s).find("try -F 10000 or a longer run\n") != std::string::npos);
  s.off_cpu = false;
  s.frequency = 0;
  s.period = 100000;
  CHECK(format_summary(s).find("swprof: only 3 samples in 2.000 s: -c 100000 takes one sample per 100000 events; try a "
                               "smaller -c or a longer run\n") != std::string::npos);
  s.period = 0;
  s.frequency = 999;
  s.time_event = false;  // page-faults, say
  CHECK(format_summary(s).find("too few events happened; try a higher -F or a longer run") != std::string::npos);

  s.samples = 9;
  s.off_cpu_samples = 1;  // off-CPU samples are samples too
  CHECK(format_summary(s).find("too few") == std::string::npos);
  s.off_cpu_samples = 0;
  s.lost = 5;  // the line on losses says what to do
  CHECK(format_summary(s).find("too few") == std::string::npos);
  s.lost = 0;
  s.frequency = 0;  // a dump: as many samples as it asked for
  CHECK(format_summary(s).find("too few") == std::string::npos);
  s.frequency = 999;
  s.samples = 10;
  CHECK(format_summary(s).find("too few") == std::string::npos);
}
