#pragma once
// The files a session's samples landed in: each file mapped executable that
// held a sample's user-mode pc (the sampled pc in user mode, else where the
// user code was when it entered the kernel), and the program of each process
// sampled (its first file mapped executable since its exec, or the first
// found at attach), which its stacks pass through; with the build-id its
// mapping record gave. The build-id cache keeps them at the end of `record`
// and `attach` (profile/build_id_cache_fill.h), as perf keeps the files of
// the sampled pcs: nothing is unwound while recording; a report, which
// unwinds, keeps every file the stacks pass through.
//
// Each process's executable mappings are replayed from the records as
// they are handled: an exec forgets them, a fork copies the parent's, an
// exit drops them. A sample costs one lookup of its process and, most of
// the time, one range check (the range its process's last sample hit).

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "recording/build_id.h"
#include "recording/records.h"

namespace swprof {

struct SampledFile {
  std::string path;
  BuildId build_id;  // as the mapping record gave it; empty when it had none
};

class SampledFiles {
 public:
  void on_mapping(const MappingRecord& m);
  void on_sample(uint32_t pid, uint64_t pc);
  void on_exec(uint32_t pid) { processes_.erase(pid); }
  void on_fork(uint32_t parent, uint32_t child);
  void on_exit(uint32_t pid) { processes_.erase(pid); }
  // The files hit, in the order first mapped.
  std::vector<SampledFile> files() const;

 private:
  struct Range {
    uint64_t start = 0, end = 0;
    size_t file = 0;  // of files_
  };
  struct Process {
    std::vector<Range> ranges;  // in the order mapped: a later one over an earlier wins
    size_t last_hit = 0;        // of ranges
    size_t program = 0;         // of files_: the file of ranges[0]
  };
  size_t file_index(const MappingRecord& m);

  std::unordered_map<uint32_t, Process> processes_;
  std::vector<SampledFile> files_;
  std::vector<bool> hit_;  // of files_
  std::map<std::pair<std::string, BuildId>, size_t> index_;  // of files_
};

// The user-mode pc of a sample (see above); 0 when it has none.
uint64_t user_pc(const SampleView& s);

}  // namespace swprof
