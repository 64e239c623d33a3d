#include "sampler/stop_signals.h"

#include <unistd.h>

#include <cstring>

#include "common/terminating_signals.h"

namespace swprof {
namespace {

volatile sig_atomic_t g_stop_requests = 0;
volatile sig_atomic_t g_stop_signal = 0;
volatile pid_t g_abort_kill_pid = 0;  // record: the command, stopped on abort too

void on_stop_signal(int sig) {
  g_stop_requests = g_stop_requests + 1;
  if (g_stop_signal == 0) g_stop_signal = sig;
  // Abort: chunks are written with one write(2) each, so the file on disk
  // ends at a chunk boundary and stays readable.
  if (g_stop_requests >= 2) {
    if (g_abort_kill_pid > 0) kill(g_abort_kill_pid, SIGTERM);
    _exit(130);
  }
}

void on_write_error_signal(int) {}

}  // namespace

StopSignals::StopSignals() {
  g_stop_requests = 0;
  g_stop_signal = 0;
  for (int sig : stop_request_signals()) install(sig, on_stop_signal);
  for (int sig : write_error_signals()) install(sig, on_write_error_signal);
}

StopSignals::~StopSignals() {
  for (const auto& [sig, old] : saved_) sigaction(sig, &old, nullptr);
  g_abort_kill_pid = 0;
}

void StopSignals::kill_on_abort(pid_t pid) { g_abort_kill_pid = pid; }

bool StopSignals::requested() { return g_stop_requests > 0; }

std::string StopSignals::reason() {
  const int sig = g_stop_signal;
  if (sig == SIGINT || sig == 0) return "interrupted";
  const char* abbrev = sigabbrev_np(sig);
  return std::string("interrupted by ") + (abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig));
}

void StopSignals::install(int sig, void (*handler)(int)) {
  struct sigaction sa = {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  struct sigaction old = {};
  if (sigaction(sig, &sa, &old) == 0) saved_.emplace_back(sig, old);
}

}  // namespace swprof
