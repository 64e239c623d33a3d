#include "common/temp_file_cleanup.h"

#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <vector>

#include "common/terminating_signals.h"

namespace swprof {
namespace {

// A slot is free (0), being filled or emptied (1), or holds a live path (2).
// The handler only reads slots in state 2.
struct Slot {
  std::atomic<int> state{0};
  char path[PATH_MAX];
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");

Slot slots[TempFileCleanup::kSlots];

std::vector<int> cleanup_signals() {
  std::vector<int> sigs = stop_request_signals();
  for (int sig : write_error_signals()) sigs.push_back(sig);
  return sigs;
}

void remove_temp_files_and_reraise(int sig) {
  const int saved_errno = errno;
  for (Slot& s : slots)
    if (s.state.load(std::memory_order_acquire) == 2) ::unlink(s.path);
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  errno = saved_errno;
  // Delivered with the default action once this handler returns.
  ::raise(sig);
}

// For each signal whose disposition is the default (checked at every
// registration, so a default restored since is covered again).
void install_handlers() {
  static const std::vector<int> signals = cleanup_signals();
  for (int sig : signals) {
    struct sigaction old;
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_temp_files_and_reraise;
    sigemptyset(&sa.sa_mask);
    for (int other : signals) sigaddset(&sa.sa_mask, other);  // one cleanup at a time
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace

TempFileCleanup::TempFileCleanup(const std::string& path) {
  if (path.empty() || path.size() >= PATH_MAX) return;
  install_handlers();
  for (size_t i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (!slots[i].state.compare_exchange_strong(expected, 1, std::memory_order_acquire)) continue;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].state.store(2, std::memory_order_release);
    slot_ = static_cast<int>(i);
    return;
  }
}

void TempFileCleanup::release() {
  if (slot_ < 0) return;
  slots[slot_].state.store(0, std::memory_order_release);
  slot_ = -1;
}

}  // namespace swprof
