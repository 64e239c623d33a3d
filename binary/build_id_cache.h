#pragma once
// The build-id cache on disk (docs/build-id-cache.md): the binaries samples
// hit and their separate debuginfo, kept by build-id, so that a report
// still names and unwinds a recording's frames after its binaries were
// rebuilt, updated or deleted. As perf's ~/.debug, and ccache's layout:
//
//   ROOT/                    $XDG_CACHE_HOME/swprof (~/.cache/swprof); 0700, this user's
//     CACHEDIR.TAG           backup tools leave the folder out
//     ab/cdef0123.../        an entry: the build-id's hex, split after two digits; 0700
//       binary               the binary: a hard link to its file, or a copy (0600)
//       debuginfo            its separate debuginfo, when it has one (the same)
//       path                 where the binary was, one line (`swprof cache list`)
//       used                 empty: its mtime is the entry's last use
//
// Every file is written under a temporary name in its entry's folder
// (.tmp.PID.N) and renamed into place: a reader, or a writer racing this
// one, sees the whole old file or the whole new one. Nothing read is
// trusted: each name is opened under the root's descriptor, one component
// at a time, never through a symbolic link; a kept file must be a regular
// file owned by this user or root, and its build-id its entry's; anything
// else is a miss with a reason (a warning for the user), never a file used.
//
// The size bound counts the bytes the cache alone keeps on disk: a copy, or
// a hard link whose file has no other name left (st_nlink 1); a hard link
// to a file still in place costs nothing. prune() removes the least
// recently used entries (by their stamp) until the cache is within it.
//
// A hard link is the file itself: a binary overwritten in place (`cp NEW
// OLD`, not a linker, which writes a new file) changes the entry too; its
// build-id then no longer matches and the entry is a miss.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "common/regular_file.h"
#include "common/unique_fd.h"
#include "recording/build_id.h"

namespace swprof {

enum class CachedFile : uint8_t { kBinary, kDebuginfo };

// How add() keeps a file.
enum class CacheLinking : uint8_t {
  kLinkWhenPossible,  // a hard link when on the cache's file system and permitted, else a copy
  kCopy,              // always a copy (tests; a cache that must not share files)
};

// What add() did with a file.
struct CacheAddResult {
  enum class Outcome : uint8_t { kLinked, kCopied, kPresent, kRefused };
  Outcome outcome = Outcome::kRefused;
  uint64_t bytes = 0;   // the file's
  std::string problem;  // kRefused: why, one line
};

// One entry, as list() finds it.
struct CacheEntry {
  BuildId build_id;
  std::string path;  // where the binary was when kept; empty when unknown
  bool has_binary = false;
  bool has_debuginfo = false;
  uint64_t bytes = 0;       // of its files
  uint64_t own_bytes = 0;   // of those, what the cache alone keeps (see above)
  int64_t last_use_ns = 0;  // of its stamp (the folder's when it has none), since the epoch
};

struct CachePruneResult {
  size_t removed = 0;         // entries
  uint64_t freed_bytes = 0;   // own bytes of the entries removed
  size_t kept = 0;            // entries left
  uint64_t kept_bytes = 0;    // own bytes left
  std::vector<std::string> problems;  // entries that could not be removed, one line each
};

class BuildIdCache {
 public:
  static constexpr uint64_t kDefaultMaxBytes = uint64_t{2} << 30;
  // The longest `path` file read back.
  static constexpr uint64_t kMaxPathFileBytes = 4096;

  // The cache at `root` (an absolute path; made on the first add()).
  explicit BuildIdCache(std::string root, uint64_t max_bytes = kDefaultMaxBytes,
                        CacheLinking linking = CacheLinking::kLinkWhenPossible);

  // $XDG_CACHE_HOME/swprof when XDG_CACHE_HOME is an absolute path, else
  // $HOME/.cache/swprof; empty when neither is set.
  static std::string default_root();

  const std::string& root() const { return root_; }
  uint64_t max_bytes() const { return max_bytes_; }
  // Where the file of `kind` for `build_id` is kept (a name for messages
  // and for the symbolizer's warnings; opened only through open()).
  std::string path_of(CachedFile kind, const BuildId& build_id) const;

  // Makes the cache's folder (and its parents) when missing: empty, or why
  // the cache cannot be written (one line).
  std::string prepare() const;

  // The kept file of `kind` for `build_id`, opened and checked. A miss
  // (error ENOENT) when there is none; any other failure is an entry that
  // is there but not to be used, `reason` saying why ("its build-id is
  // 12ab..., not 34cd...", "is a symbolic link", "is owned by uid 1000").
  FileResult<RegularFile> open(CachedFile kind, const BuildId& build_id) const;

  // Stamps the entry of `build_id` as used now (once per BuildIdCache and
  // entry: what a report adds to its cost is one small write per binary).
  void note_use(const BuildId& build_id);

  // Keeps `file` (opened from `path`) as the file of `kind` for
  // `build_id`: kPresent when a good one is kept already (stamped as used),
  // else a hard link or a copy, checked before it is renamed into place.
  // Refused (nothing written) when the file's build-id is not `build_id`,
  // it is larger than the bound, or the cache cannot be written.
  CacheAddResult add(CachedFile kind, const BuildId& build_id, const RegularFile& file, const std::string& path);

  // Every entry, in no particular order; an empty list when there is no
  // cache. Throws Error when the root cannot be read.
  std::vector<CacheEntry> list() const;
  // Removes the least recently used entries until the cache keeps at most
  // `max_bytes`, and temporary files older than an hour (a writer that was
  // killed). Throws Error when the root cannot be read.
  CachePruneResult prune(uint64_t max_bytes) const { return remove_entries(max_bytes, false); }
  CachePruneResult prune() const { return prune(max_bytes_); }
  // Removes every entry (and every temporary file an hour old).
  CachePruneResult clear() const { return remove_entries(0, true); }

 private:
  // The root's descriptor; with `create`, made (and its parents) when
  // missing. Invalid with `problem` set otherwise.
  UniqueFd open_root(bool create, std::string& problem) const;
  // The folder of `build_id`'s entry under `root` (made with `create`).
  UniqueFd open_entry(int root, const BuildId& build_id, bool create, std::string& problem) const;
  CacheAddResult write(int entry, CachedFile kind, const BuildId& build_id, const RegularFile& file);
  void write_path(int entry, const std::string& path);
  CachePruneResult remove_entries(uint64_t max_bytes, bool all) const;

  std::string root_;
  uint64_t max_bytes_;
  CacheLinking linking_;
  mutable std::mutex mutex_;
  std::set<BuildId> stamped_;
};

}  // namespace swprof
