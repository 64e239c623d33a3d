#include "common/terminating_signals.h"

#include <signal.h>

namespace swprof {

std::vector<int> stop_request_signals() {
  std::vector<int> sigs = {SIGINT,    SIGTERM, SIGHUP,  SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
                           SIGVTALRM, SIGPROF, SIGXCPU, SIGPOLL, SIGPWR,  SIGSTKFLT};
  for (int s = SIGRTMIN; s <= SIGRTMAX; ++s) sigs.push_back(s);
  return sigs;
}

std::vector<int> write_error_signals() { return {SIGPIPE, SIGXFSZ}; }

}  // namespace swprof
