#pragma once
// Starts the profiled command stopped at a gate: the child is forked and
// waits on a pipe until the parent has opened its perf events (with
// enable_on_exec), then execs. An exec failure travels back over a
// close-on-exec pipe.

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/unique_fd.h"

namespace swprof {

// Finds `name` like execvp would (PATH search unless it contains '/').
// Throws Error "command not found" / "not executable".
std::string resolve_command(const std::string& name);

class Launcher {
 public:
  // Forks the child, which waits at the gate. Throws Error on failure.
  explicit Launcher(const std::vector<std::string>& argv);
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;
  // Kills and reaps a child that never got past the gate.
  ~Launcher();

  pid_t pid() const { return pid_; }
  // Opens the gate; the child execs. Throws Error when exec fails (the child
  // has then exited and been reaped).
  void release();

 private:
  pid_t pid_ = -1;
  bool released_ = false;
  UniqueFd gate_;         // write end: one byte lets the child exec
  UniqueFd exec_status_;  // read end: errno from a failed exec, EOF on success
  std::string path_;
};

}  // namespace swprof
