#pragma once
// Runs the real swprof binary and the test workloads, and summarizes the
// recordings they write.

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace swprof::testing {

struct ProcessResult {
  int exit_code = -1;  // 128+N when killed by signal N
  std::string out;
  std::string err;
};

// Starts a process with stdout/stderr captured to files; the caller waits.
struct Spawned {
  pid_t pid = -1;
  std::string out_path;
  std::string err_path;
};
Spawned spawn(const std::vector<std::string>& argv, const std::string& dir);
ProcessResult wait_for(const Spawned& p, int timeout_s = 120);
ProcessResult run(const std::vector<std::string>& argv, const std::string& dir, int timeout_s = 120);
// Waits until a file is at `path` and not empty (swprof has opened its
// recording: its stop signals are handled from then on); false after
// `timeout_s`.
bool wait_for_file(const std::string& path, int timeout_s = 60);

// `swprof record OPTIONS -o OUT -- COMMAND`, run in `dir`.
ProcessResult run_record(const std::string& dir, const std::string& out, const std::vector<std::string>& options,
                         const std::vector<std::string>& command);

// Everything the tests check about a recording.
struct RecordingSummary {
  uint64_t samples = 0;
  uint64_t kernel_mode_samples = 0;
  uint64_t samples_with_kernel_chain = 0;
  uint64_t samples_with_user_stack = 0;
  uint64_t samples_without_regs = 0;
  std::map<uint32_t, uint64_t> samples_by_tid;
  std::map<uint32_t, uint64_t> samples_by_pid;
  std::map<uint32_t, std::string> comm_by_tid;
  std::set<std::string> mapped_paths;
  uint64_t mappings_with_build_id = 0;
  uint64_t mappings = 0;
  int64_t target_pid = 0;
  bool finalized = false;
  bool complete = false;
  std::string end_json;
};
RecordingSummary summarize(const std::string& path);

// A second recording session with `-o out` (record, attach): "" when the
// first recording (its bytes `first_bytes`) is at out.old, the summary says
// so, and the new recording is finalized and readable only by its owner;
// else what is not so.
std::string second_recording_problems(const std::string& out, const std::string& first_bytes,
                                      const ProcessResult& second);

std::string swprof_bin();
std::string workload_bin();

// The tests of what an unprivileged user is refused run swprof as nobody
// (uid 65534) with setpriv, and it runs the test programs. Why they cannot
// here, empty when they can: they need root, setpriv, and test programs
// that nobody may run (not inside a folder of mode 0700, such as one
// `mktemp -d` made).
std::string nobody_skip_reason();

// Lines in `text` (the one-clear-line rule for errors).
size_t line_count(const std::string& text);

}  // namespace swprof::testing
