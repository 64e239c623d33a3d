#pragma once
// The process's peak resident set, reset on demand: bounds on the memory a
// call may take are checked as the peak's growth over the call, whatever
// earlier tests in the same process took.

#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>

namespace swprof::testing {

// Sets the peak (VmHWM) to the current resident set (/proc/PID/clear_refs).
inline void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

// A "KEY:  N kB" field of /proc/self/status, in KB (0 when absent).
inline size_t status_kb(const std::string& key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(key + ":", 0) == 0) {
      std::istringstream fields(line.substr(key.size() + 1));
      size_t kb = 0;
      fields >> kb;
      return kb;
    }
  return 0;
}

// The peak resident set since the last reset, and the resident set now, in KB.
inline size_t peak_rss_kb() { return status_kb("VmHWM"); }
inline size_t rss_kb() { return status_kb("VmRSS"); }

}  // namespace swprof::testing
