#pragma once
// What a sampling session tells the person who started it: progress while it
// runs, and a summary when it is over. Values only; cli/ prints them.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sampler/sampled_files.h"

namespace swprof {

struct SessionSummary {
  std::string output;
  std::string previous_recording;  // PATH.old: what was at the output, kept (keep_previous_recording)
  std::string end_reason;  // "exited", "interrupted", "duration", "target exited"
  double duration_s = 0;
  uint64_t samples = 0;
  uint64_t kernel_mode_samples = 0;
  uint64_t threads = 0;  // every thread seen, sampled or not (as `swprof info` counts them)
  uint64_t lost = 0;
  uint64_t truncated = 0;
  uint64_t extended = 0;      // of the truncated, those read on past the copy (--stack-beyond)
  // Copies the kernel ended short of --stack-size at a page it could not
  // read (not present), read on past it.
  uint64_t extended_at_page = 0;
  uint32_t stack_beyond = 0;  // --stack-beyond: 0 when no stack was read past its copy
  uint64_t throttles = 0;
  uint64_t malformed = 0;
  uint64_t file_bytes = 0;
  uint64_t ring_bytes = 0;  // per CPU
  // --off-cpu / --wall: what the off-CPU events delivered and what was kept.
  bool off_cpu = false;
  uint64_t switch_outs = 0;
  uint64_t off_cpu_samples = 0;  // written with their stacks
  uint64_t off_cpu_repeats = 0;  // short waits written as a reference to an earlier stack
  uint64_t off_cpu_lost = 0;     // records lost on the off-CPU rings
  uint64_t blocked_at_attach = 0;  // attach: threads found blocked, given a synthesized off-CPU sample
  uint64_t offcpu_ring_bytes = 0;  // per CPU
  uint32_t stack_size = 0;
  // How often the event samples: -F (samples per second; of CPU time for a
  // time event) or -c (events per sample); the other is 0.
  uint32_t frequency = 0;
  uint64_t period = 0;
  bool time_event = false;  // cpu-clock, task-clock
  uint64_t on_cpu_ns = 0;   // a time event's count: the sampled threads' CPU time while sampled
  bool kernel_samples = false;
  std::string kernel_note;
  int wait_status = 0;      // record: the command's wait status
  bool has_wait_status = false;
  uint64_t embedded_files = 0;  // binaries found only inside a process's mount namespace, embedded
  uint64_t embedded_bytes = 0;
  uint64_t kernel_symbols_bytes = 0;  // the kernel symbols kept for the kernel addresses sampled
  std::vector<std::string> warnings;  // one line each
  // The files the samples landed in (sampler/sampled_files.h), for the
  // build-id cache.
  std::vector<SampledFile> sampled_files;
};

// The summary as the lines shown on stderr after a session.
std::string format_summary(const SessionSummary& summary);

// The command's exit status as a shell would report it (128+N for signal N).
int exit_code_from_wait_status(int wait_status);

// Running totals while a session records.
struct SessionProgress {
  double seconds = 0;       // since the recording started
  uint64_t samples = 0;
  uint64_t lost = 0;
  uint64_t file_bytes = 0;  // written so far
  bool done = false;        // the last call: sampling is over, the summary follows
};

// Called every so often while sampling (on the sampling thread), and once
// with `done` set when sampling is over.
using SessionProgressFn = std::function<void(const SessionProgress&)>;

}  // namespace swprof
