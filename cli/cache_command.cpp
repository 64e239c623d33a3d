// `swprof cache list|prune|clear`: the build-id cache of binaries
// (binary/build_id_cache.h); and the cache every command that records or
// reports uses (cli/cache_options.h).

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "cli/cache_options.h"
#include "cli/command_outline.h"
#include "cli/commands.h"
#include "common/error.h"
#include "common/format.h"
#include "common/text_escape.h"
#include "profile/build_id_cache_fill.h"
#include "sampler/event_spec.h"

namespace swprof::cli {

uint64_t parse_cache_size(const std::string& text, const std::string& what) {
  if (text.empty() || text[0] < '0' || text[0] > '9')
    throw Error("invalid " + what + " '" + text + "': expected a size such as 0, 500M or 2G");
  const uint64_t bytes = parse_byte_size(text, what.c_str());
  if (bytes > (uint64_t{1} << 50)) throw Error("invalid " + what + " '" + text + "': more than 1 PiB");
  return bytes;
}

std::shared_ptr<BuildIdCache> user_build_id_cache() {
  const std::string root = BuildIdCache::default_root();
  if (root.empty()) return nullptr;
  const char* bound = std::getenv(kCacheMaxSizeVariable);
  return std::make_shared<BuildIdCache>(
      root, bound && *bound ? parse_cache_size(bound, kCacheMaxSizeVariable) : BuildIdCache::kDefaultMaxBytes);
}

void keep_sampled_files(const SessionSummary& summary, BuildIdCache& cache) {
  std::vector<RecordedBinary> files;
  for (const SampledFile& f : summary.sampled_files) files.push_back(RecordedBinary{f.path, f.build_id});
  for (const std::string& problem : keep_in_build_id_cache(cache, files, SymbolizerOptions()).problems)
    std::fprintf(stderr, "swprof: warning: %s\n", terminal_safe(problem).c_str());
}

namespace {

std::string local_time(int64_t seconds) {
  const time_t t = static_cast<time_t>(seconds);
  struct tm tm {};
  char buf[32];
  if (!localtime_r(&t, &tm) || strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm) == 0) return "?";
  return buf;
}

// One line per entry, the most recently used first, then the totals.
void print_list(const BuildIdCache& cache) {
  std::vector<CacheEntry> entries = cache.list();
  if (entries.empty()) {
    std::printf("the build-id cache %s is empty\n", terminal_safe(cache.root()).c_str());
    return;
  }
  std::sort(entries.begin(), entries.end(),
            [](const CacheEntry& a, const CacheEntry& b) { return a.last_use_ns > b.last_use_ns; });
  std::printf("%-40s  %10s  %-16s  %s\n", "build-id", "size", "last use", "file");
  uint64_t bytes = 0, own = 0;
  for (const CacheEntry& e : entries) {
    bytes += e.bytes;
    own += e.own_bytes;
    std::string file = e.path.empty() ? "(where from: unknown)" : terminal_safe(e.path);
    if (!e.has_binary) file += " (no binary)";
    if (e.has_debuginfo) file += " + debuginfo";
    std::printf("%-40s  %10s  %-16s  %s\n", to_hex(e.build_id).c_str(), human_bytes(e.bytes).c_str(),
                local_time(e.last_use_ns / 1'000'000'000).c_str(), file.c_str());
  }
  std::printf("%zu entries, %s; %s of it kept by the cache alone (bound %s) in %s\n", entries.size(),
              human_bytes(bytes).c_str(), human_bytes(own).c_str(), human_bytes(cache.max_bytes()).c_str(),
              terminal_safe(cache.root()).c_str());
}

void print_pruned(const BuildIdCache& cache, const CachePruneResult& r) {
  std::printf("removed %zu entries (%s) from %s; %zu left (%s)\n", r.removed, human_bytes(r.freed_bytes).c_str(),
              terminal_safe(cache.root()).c_str(), r.kept, human_bytes(r.kept_bytes).c_str());
  for (const std::string& p : r.problems)
    std::fprintf(stderr, "swprof: warning: cannot remove %s\n", terminal_safe(p).c_str());
}

}  // namespace

std::function<int()> add_cache_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "cache", "list, prune or clear the build-id cache of the binaries recordings hit ($XDG_CACHE_HOME/swprof)");
  auto action = std::make_shared<std::string>();
  auto max_size = std::make_shared<std::string>();
  sub->add_option("action", *action,
                  "list: every binary kept, its size and last use; prune: remove the least recently used down to "
                  "the bound; clear: remove everything")
      ->required()
      ->check(choices({"list", "prune", "clear"}));
  sub->add_option("--max-size", *max_size,
                  "prune down to this size, e.g. 500M (default: $SWPROF_CACHE_MAX_SIZE, else 2G)");
  return [action, max_size]() {
    if (*action != "list" && *action != "prune" && *action != "clear")
      throw Error("unknown cache action '" + *action + "': list, prune or clear");
    if (!max_size->empty() && *action != "prune") throw Error("--max-size goes with 'swprof cache prune'");
    const std::shared_ptr<BuildIdCache> cache = user_build_id_cache();
    if (!cache) throw Error("no build-id cache: neither XDG_CACHE_HOME nor HOME is set to an absolute path");
    if (*action == "list") print_list(*cache);
    else if (*action == "clear") print_pruned(*cache, cache->clear());
    else print_pruned(*cache, cache->prune(max_size->empty() ? cache->max_bytes() : parse_cache_size(*max_size, "--max-size")));
    std::fflush(stdout);
    return kExitOk;
  };
}

}  // namespace swprof::cli
