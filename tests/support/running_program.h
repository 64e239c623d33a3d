#pragma once
// A test program that runs while a test looks at it: started with its output
// in the test's folder, awaited until it prints "ready" (its first line),
// and killed and reaped when the test ends.

#include <signal.h>
#include <sys/types.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "support/cli_harness.h"
#include "support/read_file.h"

namespace swprof::testing {

class RunningProgram {
 public:
  RunningProgram(const std::vector<std::string>& argv, const std::string& dir) : p_(spawn(argv, dir)) {
    for (int i = 0; i < 1000 && !ready(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(ready());
  }
  ~RunningProgram() {
    kill(p_.pid, SIGKILL);
    wait_for(p_, 10);
  }
  RunningProgram(const RunningProgram&) = delete;
  RunningProgram& operator=(const RunningProgram&) = delete;

  pid_t pid() const { return p_.pid; }
  std::string id() const { return std::to_string(p_.pid); }

  // Waits (up to 10 s) until the process has `count` threads, each in one of
  // the `states` of /proc/PID/task/TID/stat ("S", "T", ...).
  bool wait_threads(size_t count, const std::string& states) const {
    for (int i = 0; i < 1000; ++i) {
      if (threads_in(states) == count) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

 private:
  bool ready() const { return read_file(p_.out_path).rfind("ready\n", 0) == 0; }

  // The number of threads, or 0 when one of them is in another state.
  size_t threads_in(const std::string& states) const {
    size_t n = 0;
    std::error_code ec;
    for (const auto& task : std::filesystem::directory_iterator("/proc/" + id() + "/task", ec)) {
      const std::string stat = read_file(task.path().string() + "/stat");
      const size_t close = stat.rfind(')');
      if (close == std::string::npos || close + 2 >= stat.size()) return 0;
      if (states.find(stat[close + 2]) == std::string::npos) return 0;
      ++n;
    }
    return n;
  }

  Spawned p_;
};

}  // namespace swprof::testing
