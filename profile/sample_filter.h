#pragma once
// Which samples a profile keeps: by thread (tid, name) and by time, decided
// before a sample is symbolized; and the options that shape the kept stacks.
// The function-name patterns (include/exclude) are matched on the stack's
// frames by StackFilter (profile/name_filter.h).

#include <cstdint>
#include <string>
#include <vector>

namespace swprof {

struct ProfileFilter {
  std::vector<uint32_t> tids;         // keep only these threads (empty: all)
  std::vector<std::string> comms;     // keep only threads of these names (empty: all)
  std::string include;                // keep stacks with a frame whose function matches (RE2 syntax)
  std::string exclude;                // drop stacks with a frame whose function matches
  double from_seconds = -1;           // keep samples at or after this many seconds from the start (<0: no bound)
  double to_seconds = -1;             // keep samples before this many seconds from the start (<0: no bound)
  bool reverse = false;               // leaf first: the tree shows callers of the hottest leaves
  bool kernel_frames = true;          // add the kernel callchain above the user frames
};

// The thread and time part of a ProfileFilter.
class SampleFilter {
 public:
  // `start_ns`: the monotonic time the seconds of the window count from.
  SampleFilter(const ProfileFilter& filter, uint64_t start_ns);

  // A sample at monotonic `time_ns` of thread `tid` named `comm`.
  bool keep(uint64_t time_ns, uint32_t tid, const std::string& comm) const {
    return in_window(time_ns) && keeps_thread(tid) && keeps_name(comm);
  }

  bool in_window(uint64_t time_ns) const;
  bool keeps_thread(uint32_t tid) const;
  bool keeps_name(const std::string& comm) const;

 private:
  const ProfileFilter& filter_;
  uint64_t start_ns_;
};

}  // namespace swprof
