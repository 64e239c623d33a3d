#pragma once
// The signals that end a sampling session cleanly.
//
// Every signal whose default action would end swprof while the command runs
// on is caught: the first one (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, ...)
// stops sampling and finalizes the file, like Ctrl-C; the second aborts.
// SIGPIPE and SIGXFSZ are caught and do nothing, so the write that caused
// them fails with EPIPE/EFBIG and the session ends through its error path.
// Handlers (unlike ignored signals) are reset by execve, so the command
// starts with the default dispositions.

#include <signal.h>
#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace swprof {

// Installs the handlers for its lifetime; restores the old ones on destruction.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // record: the command, sent SIGTERM when a second signal aborts swprof.
  static void kill_on_abort(pid_t pid);
  static bool requested();
  // "interrupted" for SIGINT, "interrupted by SIGHUP" for the others.
  static std::string reason();

 private:
  void install(int sig, void (*handler)(int));

  std::vector<std::pair<int, struct sigaction>> saved_;
};

}  // namespace swprof
