#pragma once
// `swprof record` and `swprof attach`: open the perf events, drain their ring
// buffers into a recording until the target is done, and summarize.

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sampler/event_spec.h"

namespace swprof {

struct RecordRequest {
  SamplingOptions sampling;
  std::vector<std::string> command;
  std::string output = "swprof.data";
  bool progress = false;  // live progress line on stderr
};

// The longest --duration of attach: a year.
inline constexpr double kMaxAttachSeconds = 365.0 * 24 * 3600;

struct AttachRequest {
  SamplingOptions sampling;
  pid_t pid = 0;
  double duration_s = 0;  // 0: until Ctrl-C or the process exits; at most kMaxAttachSeconds
  std::string output = "swprof.data";
  bool progress = false;
};

struct SessionSummary {
  std::string output;
  std::string end_reason;  // "exited", "interrupted", "duration", "target exited"
  double duration_s = 0;
  uint64_t samples = 0;
  uint64_t kernel_mode_samples = 0;
  uint64_t threads = 0;
  uint64_t lost = 0;
  uint64_t truncated = 0;
  uint64_t throttles = 0;
  uint64_t malformed = 0;
  uint64_t file_bytes = 0;
  uint64_t ring_bytes = 0;  // per CPU
  uint32_t stack_size = 0;
  bool kernel_samples = false;
  std::string kernel_note;
  int wait_status = 0;      // record: the command's wait status
  bool has_wait_status = false;
};

// Both throw Error for bad input (exit code 2) before anything is written.
SessionSummary run_record(const RecordRequest& request);
SessionSummary run_attach(const AttachRequest& request);

// The summary printed on stderr after a session.
std::string format_summary(const SessionSummary& summary);

// The command's exit status as a shell would report it (128+N for signal N).
int exit_code_from_wait_status(int wait_status);

}  // namespace swprof
