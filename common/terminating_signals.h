#pragma once
// The signals whose default action ends the process and that come from
// outside it (signal(7)): a person (Ctrl-C, Ctrl-\, kill), a terminal that
// hangs up, a timer, a resource limit, a reader that went away, a queued
// real-time signal. Whoever must not leave something half done behind
// (a recording to finalize, a temporary file to remove) handles these.
//
// Not among them: the faults of the program itself (SIGSEGV, SIGBUS, SIGILL,
// SIGFPE, SIGTRAP, SIGSYS) and SIGABRT. They report a bug; the state they
// leave, a core dump or a FILE.tmp.PID, is evidence to keep, and a handler
// running on a broken process could only make it worse.

#include <vector>

namespace swprof {

// A request to stop: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
// SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGPOLL, SIGPWR, SIGSTKFLT and the
// real-time signals (SIGRTMIN to SIGRTMAX, those libc leaves to programs).
std::vector<int> stop_request_signals();

// Raised by a write that cannot be done: SIGPIPE (the reader is gone),
// SIGXFSZ (the file would exceed RLIMIT_FSIZE).
std::vector<int> write_error_signals();

}  // namespace swprof
