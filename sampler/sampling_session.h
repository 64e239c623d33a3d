#pragma once
// `swprof record` and `swprof attach`: open the perf events, drain their ring
// buffers into a recording until the target is done, and summarize (a value:
// the library prints nothing; progress goes to the request's callback).

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sampler/event_spec.h"
#include "sampler/session_summary.h"

namespace swprof {

struct RecordRequest {
  SamplingOptions sampling;
  std::vector<std::string> command;
  std::string output = "swprof.data";
  SessionProgressFn progress;  // may be empty
};

// The longest --duration of attach: a year.
inline constexpr double kMaxAttachSeconds = 365.0 * 24 * 3600;

struct AttachRequest {
  SamplingOptions sampling;
  pid_t pid = 0;
  double duration_s = 0;  // 0: until Ctrl-C or the process exits; at most kMaxAttachSeconds
  std::string output = "swprof.data";
  SessionProgressFn progress;  // may be empty
};

// Both throw Error for bad input (exit code 2) before anything is written.
SessionSummary run_record(const RecordRequest& request);
SessionSummary run_attach(const AttachRequest& request);

}  // namespace swprof
