#pragma once
// `swprof dump`: ptrace snapshots of a live process written as a recording,
// one sample per thread and snapshot, so that the reports' pipeline unwinds
// and symbolizes them. One snapshot (the stacks now) or --samples N every
// --interval MS (a wall-clock profile: each thread's sample weighs the
// interval, off-CPU when the thread was not running).

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "sampler/ptrace_snapshot.h"
#include "sampler/session_summary.h"

namespace swprof {

// Writes one snapshot as a recording at `path` (mode "dump"): the process's
// code mappings from /proc/PID/maps, each thread's name and sample.
void write_snapshot_recording(const std::string& path, const ProcessSnapshot& snapshot);

// The longest --samples of dump, and the longest --interval (an hour).
inline constexpr uint64_t kMaxDumpSamples = 100'000'000;
inline constexpr uint64_t kMaxDumpIntervalMs = 3'600'000;

struct DumpRequest {
  pid_t pid = 0;
  SnapshotOptions snapshot;
  uint64_t samples = 1;       // >= 1
  uint64_t interval_ms = 100; // >= 1
  std::string output = "swprof.data";
  SessionProgressFn progress;  // may be empty
};

// --samples: takes the snapshots until done, the process exits or a stop
// signal (Ctrl-C) arrives, and finalizes the recording. Throws Error for a
// request that cannot be dumped (before anything is written).
SessionSummary run_dump_recording(const DumpRequest& request);

}  // namespace swprof
