#pragma once
// The source files a view shows beside its samples (`swprof annotate`),
// found from the paths DWARF names them by. A tree that moved since the
// build is found with path substitutions (--prefix-map OLD=NEW, as GCC's
// -fdebug-prefix-map writes them) and folders to search (--source-dir DIR,
// as gdb's `directory`). Each file is read once, at most kMaxBytes, and only
// when it is a regular file.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace swprof {

struct PrefixMap {
  std::string from, to;
};

// "OLD=NEW" as a PrefixMap; throws Error naming `option` when there is no
// '=' or OLD is empty.
PrefixMap parse_prefix_map(const std::string& text, const char* option);

struct SourceSearch {
  std::vector<PrefixMap> prefix_maps;  // tried in order, the first whose `from` starts the path
  std::vector<std::string> dirs;
};

class SourceFiles {
 public:
  static constexpr uint64_t kMaxBytes = uint64_t{64} << 20;

  explicit SourceFiles(SourceSearch search) : search_(std::move(search)) {}

  // The lines of the file DWARF names `path` (without their line ends), or
  // nullptr when it is found nowhere. Candidates, in order: `path` with the
  // first prefix map that applies; `path` itself; then under each
  // --source-dir, `path` (an absolute one without its leading '/'), then
  // each shorter tail of it down to its file name.
  const std::vector<std::string>* lines(const std::string& path);
  // Where lines(path) read the file from; empty when it found none.
  std::string found(const std::string& path) const;

 private:
  struct Entry {
    std::string found;
    std::vector<std::string> lines;
    bool ok = false;
  };
  std::vector<std::string> candidates(const std::string& path) const;

  SourceSearch search_;
  std::map<std::string, Entry> files_;  // by the path asked for
};

}  // namespace swprof
