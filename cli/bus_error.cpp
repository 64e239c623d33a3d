#include "cli/bus_error.h"

#include <signal.h>
#include <unistd.h>

#include "common/error.h"

namespace swprof::cli {
namespace {

constexpr char kMessage[] =
    "swprof: error: a file being read (a binary, its debuginfo) was cut short meanwhile, as when it is "
    "rewritten in place: run the command again once it is written\n";

extern "C" void on_bus_error(int signal, siginfo_t* info, void*) {
  if (info && info->si_code == BUS_ADRERR) {  // a mapped page past the file's end
    ssize_t written = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    static_cast<void>(written);
    _exit(kExitUsage);
  }
  struct sigaction plain {};
  plain.sa_handler = SIG_DFL;
  sigaction(signal, &plain, nullptr);
  raise(signal);
}

}  // namespace

void exit_on_bus_error() {
  struct sigaction action {};
  action.sa_sigaction = on_bus_error;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGBUS, &action, nullptr);
}

}  // namespace swprof::cli
