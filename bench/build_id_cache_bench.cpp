// What keeping a recording's binaries in the build-id cache costs at the end
// of `record` (profile/build_id_cache_fill.h, as cli/cache_command.cpp calls
// it): each round keeps BINARY... (and the separate debuginfo found for
// them) in an emptied cache at ROOT, as hard links or, with --copy, as
// copies, then once more into the cache that holds them (what every later
// recording of the same program costs). Medians over the rounds.
//
//   swprof_build_id_cache_bench ROOT [--copy] [--rounds N] BINARY...

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "profile/build_id_cache_fill.h"

using namespace swprof;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

template <class F>
double milliseconds(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ROOT [--copy] [--rounds N] BINARY...\n", argv[0]);
    return 2;
  }
  const std::string root = argv[1];
  CacheLinking linking = CacheLinking::kLinkWhenPossible;
  int rounds = 15;
  std::vector<RecordedBinary> files;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--copy") == 0) linking = CacheLinking::kCopy;
    else if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) rounds = std::atoi(argv[++i]);
    else files.push_back(RecordedBinary{argv[i], read_build_id(argv[i]).value_or(BuildId{})});
  }
  std::vector<double> cold, warm;
  CacheFillResult first;
  for (int r = 0; r < rounds; ++r) {
    BuildIdCache(root, BuildIdCache::kDefaultMaxBytes, linking).clear();
    BuildIdCache empty(root, BuildIdCache::kDefaultMaxBytes, linking);
    cold.push_back(milliseconds([&] { first = keep_in_build_id_cache(empty, files, SymbolizerOptions()); }));
    BuildIdCache full(root, BuildIdCache::kDefaultMaxBytes, linking);
    warm.push_back(milliseconds([&] { keep_in_build_id_cache(full, files, SymbolizerOptions()); }));
  }
  uint64_t own = 0;
  for (const CacheEntry& e : BuildIdCache(root).list()) own += e.own_bytes;
  std::printf("%zu binaries: %zu files linked, %zu copied (%.1f MB; the cache alone keeps %.1f MB)\n", files.size(),
              first.linked, first.copied, first.bytes_added / 1e6, own / 1e6);
  std::printf("  into an empty cache: %.2f ms; into the cache holding them: %.2f ms (medians of %d)\n", median(cold),
              median(warm), rounds);
  for (const std::string& p : first.problems) std::printf("  problem: %s\n", p.c_str());
  return 0;
}
