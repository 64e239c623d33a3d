#pragma once
// The build-id cache of the commands that record and report
// (binary/build_id_cache.h, docs/build-id-cache.md): $XDG_CACHE_HOME/swprof
// (~/.cache/swprof), bounded by $SWPROF_CACHE_MAX_SIZE (default 2 GiB);
// --no-cache leaves it alone.

#include <cstdint>
#include <memory>
#include <string>

#include "binary/build_id_cache.h"
#include "sampler/session_summary.h"

namespace swprof::cli {

inline constexpr char kCacheMaxSizeVariable[] = "SWPROF_CACHE_MAX_SIZE";

// A size such as 0, 500M or 2G given to `what` (an option or the variable).
uint64_t parse_cache_size(const std::string& text, const std::string& what);

// The user's build-id cache, or null when there is no home to keep it in.
// Throws Error when SWPROF_CACHE_MAX_SIZE is not a size.
std::shared_ptr<BuildIdCache> user_build_id_cache();

// At the end of record and attach: keeps the files the samples landed in,
// and their separate debuginfo; what went wrong as warnings on stderr.
void keep_sampled_files(const SessionSummary& summary, BuildIdCache& cache);

}  // namespace swprof::cli
