#include "profile/archive_builder.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <set>
#include <tuple>
#include <utility>

#include "binary/elf_binary.h"
#include "common/error.h"
#include "common/readable_by.h"
#include "common/regular_file.h"
#include "common/same_file.h"
#include "recording/binary_archive.h"
#include "recording/build_id.h"
#include "recording/record_source.h"
#include "recording/recording_bytes.h"
#include "recording/recording_reader.h"
#include "symbolize/debug_info.h"

namespace swprof {
namespace {

struct MappedBinary {
  std::string path;
  std::vector<uint8_t> build_id;
  uint32_t dev_major = 0, dev_minor = 0;  // 0/0/0 when the record had none
  uint64_t inode = 0;
  bool operator<(const MappedBinary& o) const {
    return std::tie(path, build_id, dev_major, dev_minor, inode) <
           std::tie(o.path, o.build_id, o.dev_major, o.dev_minor, o.inode);
  }
};

// Every file mapped executable, except those the recording embeds.
std::set<MappedBinary> executable_files(RecordSource& reader) {
  std::set<MappedBinary> files;
  std::set<std::string> embedded;
  while (auto rec = reader.next()) {
    if (auto* img = std::get_if<ImageRecord>(&*rec)) embedded.insert(img->name);
    auto* m = std::get_if<MappingRecord>(&*rec);
    if (!m || !(m->prot & PROT_EXEC) || is_anonymous_path(m->path)) continue;
    files.insert({m->path, std::vector<uint8_t>(m->build_id.begin(), m->build_id.begin() + m->build_id_size),
                  m->dev_major, m->dev_minor, m->inode});
  }
  std::erase_if(files, [&](const MappedBinary& f) { return embedded.count(embedded_file_image_name(f.path)) > 0; });
  return files;
}

class ArchiveBuild {
 public:
  ArchiveBuild(const ArchiveOptions& options, ArchiveResult& result, uid_t recording_owner)
      : options_(options), result_(result), writer_(result.output), owner_(recording_owner),
        own_recording_(recording_owner == geteuid()) {}

  void add(const MappedBinary& file) {
    if (file.build_id.empty()) return add_unidentified(file);
    if (!done_.insert(file.build_id).second) return;  // the same build-id under another path
    if (read_build_id(file.path) != file.build_id && add_cached(file)) return;
    auto regular = open(file.path);
    auto binary = regular ? elf(std::move(*regular), file.path) : nullptr;
    if (!binary) return;
    if (binary->build_id() != file.build_id) {
      result_.changed.push_back(file.path);
      return;
    }
    store(ArchiveKind::kBinary, file.build_id, file.path, binary->file_bytes());
    add_debuginfo(binary, file.build_id);
  }

  // Each entry of the archive being replaced that this run did not store
  // (its file gone, or rebuilt since), after the new ones: the archive may
  // hold the only copy. Nothing of an archive that cannot be read is kept.
  void keep_previous() {
    struct stat st;
    if (::stat(result_.output.c_str(), &st) != 0) return;
    std::shared_ptr<const BinaryArchive> previous;
    try {
      previous = BinaryArchive::open(result_.output);
    } catch (const Error& e) {
      result_.previous_problem = e.what();
      return;
    }
    for (const ArchiveEntry& e : previous->entries()) {
      if (!stored_.insert({e.kind, e.build_id}).second) continue;
      if (const std::string problem = archive_inflation_problem(e.raw_size, e.compressed_size); !problem.empty()) {
        result_.skipped.push_back(e.path + " (in the archive replaced): its copy " + problem);
      } else if (!writer_.copy(*previous, e)) {
        result_.skipped.push_back(e.path + " (in the archive replaced): its copy cannot be read");
      } else {
        result_.kept.push_back({e.path, to_hex(e.build_id), e.kind == ArchiveKind::kDebuginfo, e.raw_size,
                                e.compressed_size});
      }
    }
  }

  void finish() {
    writer_.finish();
    result_.archive_bytes = writer_.bytes_written();
  }

 private:
  // The regular file at `path`, when the recording's owner could read it.
  std::optional<RegularFile> open(const std::string& path, const std::string& what = "") {
    auto file = open_regular_file(path);
    if (!file) {
      result_.missing.push_back(path + what + ": " + file.reason);
      return std::nullopt;
    }
    if (!own_recording_) {
      if (const std::string why = owner_.why_not(file.value->fd.get()); !why.empty()) {
        result_.refused.push_back(path + what + ": the recording's owner (uid " + std::to_string(owner_.uid()) +
                                  ") could not read it (" + why + ")");
        return std::nullopt;
      }
    }
    return std::move(file.value);
  }

  std::shared_ptr<ElfBinary> elf(RegularFile file, const std::string& path) {
    auto opened = ElfBinary::open_file(std::move(file), path);
    if (opened.value && *opened.value) return *opened.value;
    result_.missing.push_back(path + ": " + (opened.reason.empty() ? "not an ELF file" : opened.reason));
    return nullptr;
  }

  // The build-id cache's copy of a binary missing or changed on disk
  // (binary/build_id_cache.h), and the debuginfo found for it (on disk, or
  // in the cache): only for this user's recording, from this user's cache.
  bool add_cached(const MappedBinary& file) {
    BuildIdCache* cache = options_.symbols.build_id_cache.get();
    if (!cache || !own_recording_) return false;
    auto kept = cache->open(CachedFile::kBinary, file.build_id);
    if (!kept) return false;
    auto opened = ElfBinary::open_file(std::move(*kept.value), cache->path_of(CachedFile::kBinary, file.build_id));
    if (!opened.value || !*opened.value) return false;
    const std::shared_ptr<ElfBinary>& binary = *opened.value;
    store(ArchiveKind::kBinary, file.build_id, file.path, binary->file_bytes(), true);
    add_debuginfo(binary, file.build_id);
    return true;
  }

  // A mapping without a recorded build-id: archived, under the file's own
  // build-id, when the recording is this user's and the file is the one
  // mapped (same device and inode).
  void add_unidentified(const MappedBinary& file) {
    if (file.inode == 0) {
      result_.without_build_id.push_back(file.path);
      return;
    }
    if (!done_paths_.insert(file.path).second) return;
    if (!own_recording_) {
      result_.refused.push_back(file.path + ": the recording is another user's (uid " +
                                std::to_string(owner_.uid()) + ") and gives no build-id for it");
      return;
    }
    auto regular = open(file.path);
    if (!regular) return;
    struct stat st {};
    if (fstat(regular->fd.get(), &st) != 0 || st.st_ino != file.inode || major(st.st_dev) != file.dev_major ||
        minor(st.st_dev) != file.dev_minor) {
      result_.not_the_mapped_file.push_back(file.path);
      return;
    }
    auto binary = elf(std::move(*regular), file.path);
    if (!binary) return;
    if (binary->build_id().empty()) {
      result_.without_build_id.push_back(file.path);
      return;
    }
    if (!done_.insert(binary->build_id()).second) return;
    store(ArchiveKind::kBinary, binary->build_id(), file.path, binary->file_bytes());
    add_debuginfo(binary, binary->build_id());
  }

  // The separate debuginfo the symbolizer finds for the binary (by
  // build-id, by .gnu_debuglink), when its DWARF is not in the binary itself.
  void add_debuginfo(const std::shared_ptr<ElfBinary>& binary, const std::vector<uint8_t>& build_id) {
    const std::string debug = DebugInfo(binary, options_.symbols).dwarf_file();
    if (debug.empty() || debug == binary->path()) return;
    auto file = open(debug, " (debuginfo of " + binary->path() + ")");
    if (!file || !within_limits(build_id, debug, file->size)) return;
    auto bytes = read_regular_file(*file, kMaxArchiveEntryBytes);
    if (!bytes) {
      result_.missing.push_back(debug + " (debuginfo of " + binary->path() + "): " + bytes.reason);
      return;
    }
    store(ArchiveKind::kDebuginfo, build_id, debug,
          Bytes(reinterpret_cast<const uint8_t*>(bytes.value->data()), bytes.value->size()));
  }

  // False (and the file listed as skipped) when it cannot be an entry.
  bool within_limits(const std::vector<uint8_t>& build_id, const std::string& path, uint64_t bytes) {
    const std::string problem = archive_entry_problem(build_id, path, bytes);
    if (!problem.empty()) result_.skipped.push_back(path + ": " + problem);
    return problem.empty();
  }

  void store(ArchiveKind kind, const std::vector<uint8_t>& build_id, const std::string& path, Bytes bytes,
             bool from_cache = false) {
    if (!within_limits(build_id, path, bytes.size())) return;
    const std::optional<uint64_t> stored = writer_.add(kind, build_id, path, bytes);
    if (!stored) {
      result_.skipped.push_back(path + ": it compresses more than " + std::to_string(kMaxArchiveInflation) +
                                " times, more than a report inflates");
      return;
    }
    stored_.insert({kind, build_id});
    result_.stored.push_back({path, to_hex(build_id), kind == ArchiveKind::kDebuginfo, bytes.size(), *stored, from_cache});
  }

  const ArchiveOptions& options_;
  ArchiveResult& result_;
  ArchiveWriter writer_;
  const ReadableBy owner_;   // of the recording
  const bool own_recording_;  // owned by this user: its requests are this user's
  std::set<std::vector<uint8_t>> done_;
  std::set<std::string> done_paths_;  // mappings without a recorded build-id
  std::set<std::pair<ArchiveKind, std::vector<uint8_t>>> stored_;
};

}  // namespace

ArchiveResult write_archive(const std::string& recording, const ArchiveOptions& options) {
  const std::shared_ptr<const RecordingBytes> file = RecordingBytes::open(recording, "recording");
  const std::set<MappedBinary> files = executable_files(*open_record_source(file));
  ArchiveResult result;
  result.output = options.output.empty() ? default_archive_path(recording) : options.output;
  check_output_is_not_an_input(result.output, {recording});
  ArchiveBuild build(options, result, file->owner());
  for (const MappedBinary& f : files) build.add(f);
  build.keep_previous();
  build.finish();
  return result;
}

}  // namespace swprof
