#include "profile/build_id_cache_fill.h"

#include <fcntl.h>

#include <functional>

#include "common/regular_file.h"
#include "symbolize/debug_info.h"

namespace swprof {
namespace {

class CacheFill {
 public:
  CacheFill(BuildIdCache& cache, const SymbolizerOptions& symbols) : cache_(cache), symbols_(symbols) {}

  // False (with one problem) when the cache cannot be written at all.
  bool prepare() {
    const std::string problem = cache_.prepare();
    if (!problem.empty()) result_.problems.push_back(problem);
    return problem.empty();
  }

  // Keeps the binary of `file`, and when it was not kept already, its
  // separate debuginfo; `binary` gives the ElfBinary the debuginfo is
  // looked up for.
  void keep(const BuildId& id, const RegularFile& file, const std::string& path,
            const std::function<std::shared_ptr<const ElfBinary>()>& binary) {
    if (!add(CachedFile::kBinary, id, file, path)) return;
    const std::shared_ptr<const ElfBinary> elf = binary();
    const std::string debug = elf ? DebugInfo(elf, symbols_).separate_debuginfo_on_disk() : "";
    if (debug.empty()) return;
    if (auto opened = open_regular_file(debug)) add(CachedFile::kDebuginfo, id, *opened.value, debug);
  }

  // A binary kept already is only stamped as used.
  bool kept_already(const BuildId& id) {
    if (!cache_.open(CachedFile::kBinary, id)) return false;
    cache_.note_use(id);
    ++result_.present;
    return true;
  }

  CacheFillResult finish() {
    if (result_.linked + result_.copied > 0) {
      result_.pruned = cache_.prune();
      for (const std::string& p : result_.pruned.problems)
        result_.problems.push_back("cannot remove an entry of the build-id cache: " + p);
    }
    return std::move(result_);
  }

 private:
  // True when the file was linked or copied.
  bool add(CachedFile kind, const BuildId& id, const RegularFile& file, const std::string& path) {
    const CacheAddResult r = cache_.add(kind, id, file, path);
    switch (r.outcome) {
      case CacheAddResult::Outcome::kLinked: ++result_.linked; break;
      case CacheAddResult::Outcome::kCopied: ++result_.copied; break;
      case CacheAddResult::Outcome::kPresent: ++result_.present; return false;
      case CacheAddResult::Outcome::kRefused: result_.problems.push_back(r.problem); return false;
    }
    result_.bytes_added += r.bytes;
    return true;
  }

  BuildIdCache& cache_;
  const SymbolizerOptions& symbols_;
  CacheFillResult result_;
};

}  // namespace

CacheFillResult keep_in_build_id_cache(BuildIdCache& cache, const std::vector<std::shared_ptr<const ElfBinary>>& binaries,
                                       const SymbolizerOptions& symbols) {
  CacheFill fill(cache, symbols);
  bool prepared = false;
  for (const std::shared_ptr<const ElfBinary>& binary : binaries) {
    if (binary->build_id().empty() || fill.kept_already(binary->build_id())) continue;
    if (!prepared && !(prepared = fill.prepare())) break;
    if (auto file = regular_file_of(binary->duplicate_descriptor()))
      fill.keep(binary->build_id(), *file.value, binary->path(), [&] { return binary; });
  }
  return fill.finish();
}

CacheFillResult keep_in_build_id_cache(BuildIdCache& cache, const std::vector<RecordedBinary>& files,
                                       const SymbolizerOptions& symbols) {
  CacheFill fill(cache, symbols);
  bool prepared = false;
  for (const RecordedBinary& f : files) {
    if (f.build_id.empty() || fill.kept_already(f.build_id)) continue;
    auto opened = open_regular_file(f.path);
    if (!opened || read_build_id_of_fd(opened.value->fd.get()) != f.build_id) continue;
    if (!prepared && !(prepared = fill.prepare())) break;
    const RegularFile& file = *opened.value;
    fill.keep(f.build_id, file, f.path, [&]() -> std::shared_ptr<const ElfBinary> {
      // ElfBinary keeps the descriptor it is given: a second one of the same file.
      auto again = regular_file_of(UniqueFd(::fcntl(file.fd.get(), F_DUPFD_CLOEXEC, 0)));
      return again ? ElfBinary::open_file(std::move(*again.value), f.path).value.value_or(nullptr) : nullptr;
    });
  }
  return fill.finish();
}

}  // namespace swprof
