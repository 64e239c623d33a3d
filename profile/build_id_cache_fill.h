#pragma once
// What the build-id cache keeps of a recording (binary/build_id_cache.h):
// each binary the samples hit, as it was recorded (the file's build-id the
// recorded one), and the separate debuginfo a report would read for it.
// `record` and `attach` fill it at their end from the files their samples
// landed in; every report from the binaries its unwinding opened, which are
// also those the stacks pass through (so the first report of a perf.data,
// or of a recording made with --no-cache, fills it). An entry kept already
// is only stamped as used; when anything was added, the cache is pruned to
// its bound.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "binary/build_id_cache.h"
#include "binary/elf_binary.h"
#include "symbolize/symbolizer.h"

namespace swprof {

// A file samples hit, as the recording names it.
struct RecordedBinary {
  std::string path;
  BuildId build_id;
};

struct CacheFillResult {
  size_t linked = 0;   // files kept as hard links
  size_t copied = 0;   // files kept as copies
  size_t present = 0;  // binaries kept already
  uint64_t bytes_added = 0;  // of the files linked or copied
  CachePruneResult pruned;   // when anything was added
  std::vector<std::string> problems;  // one line each, for warnings
};

// Keeps `binaries` (each opened from its file, of its recorded build-id)
// and their separate debuginfo (found where `symbols` says) in `cache`.
CacheFillResult keep_in_build_id_cache(BuildIdCache& cache, const std::vector<std::shared_ptr<const ElfBinary>>& binaries,
                                       const SymbolizerOptions& symbols);
// The same for files by path: one missing now, or of another build-id than
// recorded, is left out without a word (it is not the recorded binary).
CacheFillResult keep_in_build_id_cache(BuildIdCache& cache, const std::vector<RecordedBinary>& files,
                                       const SymbolizerOptions& symbols);

}  // namespace swprof
