#pragma once
// Temporary files that must not outlive the process, even when a signal ends
// it: every signal whose default action ends the process and that comes from
// outside it (common/terminating_signals.h: SIGINT, SIGTERM, SIGHUP, SIGQUIT,
// SIGUSR1, SIGALRM, SIGPIPE, SIGXFSZ, the real-time signals, ...). A fixed
// table of live paths, removed by a signal handler that then re-raises the
// signal with its default action (so the exit status still says which signal
// ended the process, and one that dumps core still does). The handler uses
// only async-signal-safe calls (unlink, sigaction, raise). Faults (SIGSEGV,
// SIGABRT, ...) are left alone: the temporary file is part of what they leave
// to look at.
//
// The handler is installed at registration, for each of those signals whose
// disposition is the default: a signal the program ignores (nohup) or
// handles itself keeps its disposition.

#include <cstddef>
#include <string>

namespace swprof {

class TempFileCleanup {
 public:
  // Registers `path` (an absolute or working-directory-relative path that
  // fits in PATH_MAX); the file is removed if one of the signals arrives
  // before release(). Registration fails silently (no cleanup on signal) when
  // the table is full.
  explicit TempFileCleanup(const std::string& path);
  ~TempFileCleanup() { release(); }
  TempFileCleanup(const TempFileCleanup&) = delete;
  TempFileCleanup& operator=(const TempFileCleanup&) = delete;

  // The file was renamed or removed: a signal no longer touches it.
  void release();
  bool registered() const { return slot_ >= 0; }

  static constexpr size_t kSlots = 16;

 private:
  int slot_ = -1;
};

}  // namespace swprof
