// TempFileCleanup: registered files are removed by every signal that ends the
// process by default and comes from outside it, and the signal still ends
// the process; faults keep their default action. Each case runs in a child
// process.

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <vector>

#include "common/temp_file_cleanup.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// Runs `body` in a child process; its wait status.
template <class F>
int in_child(F body) {
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    body();
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  return status;
}

void touch(const std::string& path) { std::ofstream(path) << "x"; }

// Signals that dump core by default (SIGQUIT, SIGXCPU, SIGXFSZ) must leave no
// core file anywhere: the child is made not dumpable.
void no_core_dump() {
  const rlimit none{0, 0};
  setrlimit(RLIMIT_CORE, &none);
  prctl(PR_SET_DUMPABLE, 0);
}

// Every signal whose default action ends the process and that is sent from
// outside it (signal(7)): a person, a terminal, a timer, a resource limit, a
// reader gone, a queued real-time signal.
std::vector<int> ending_signals() {
  std::vector<int> sigs = {SIGINT,  SIGTERM, SIGHUP,    SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,  SIGPIPE,
                           SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPOLL, SIGPWR,  SIGSTKFLT};
  for (int s = SIGRTMIN; s <= SIGRTMAX; ++s) sigs.push_back(s);
  return sigs;
}

}  // namespace

TEST_CASE("a signal removes the registered files and ends the process", "[temp_file_cleanup]") {
  for (int sig : ending_signals()) {
    TempDir dir;
    const std::string a = dir.file("a.tmp.1"), b = dir.file("b.tmp.1"), kept = dir.file("released");
    const int status = in_child([&] {
      no_core_dump();
      signal(sig, SIG_DFL);
      touch(a);
      touch(b);
      touch(kept);
      TempFileCleanup ca(a), cb(b), ck(kept);
      ck.release();  // renamed into place: no longer ours to remove
      raise(sig);
    });
    INFO("signal " << sig);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);
    CHECK_FALSE(std::filesystem::exists(a));
    CHECK_FALSE(std::filesystem::exists(b));
    CHECK(std::filesystem::exists(kept));
  }
}

TEST_CASE("faults keep their default action: their state is evidence", "[temp_file_cleanup]") {
  TempDir dir;
  const int status = in_child([&] {
    const int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGABRT};
    for (int sig : faults) signal(sig, SIG_DFL);  // the test framework catches some
    TempFileCleanup c(dir.file("x.tmp.1"));
    for (int sig : faults) {
      struct sigaction now {};
      if (sigaction(sig, nullptr, &now) != 0 || now.sa_handler != SIG_DFL) _exit(sig);
    }
  });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("a released slot is reused", "[temp_file_cleanup]") {
  TempDir dir;
  const std::string path = dir.file("last");
  const int status = in_child([&] {
    signal(SIGTERM, SIG_DFL);
    for (size_t i = 0; i < 3 * TempFileCleanup::kSlots; ++i) {
      TempFileCleanup c(dir.file("gone"));
      if (!c.registered()) _exit(3);
    }
    touch(path);
    TempFileCleanup c(path);
    raise(SIGTERM);
  });
  CHECK(WIFSIGNALED(status));
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("an ignored signal stays ignored", "[temp_file_cleanup]") {
  TempDir dir;
  const std::string path = dir.file("kept");
  const int status = in_child([&] {
    signal(SIGHUP, SIG_IGN);  // as under nohup
    touch(path);
    TempFileCleanup c(path);
    raise(SIGHUP);
    _exit(7);
  });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 7);
  CHECK(std::filesystem::exists(path));
}
