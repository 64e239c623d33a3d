#include "profile/archive_builder.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <set>
#include <tuple>

#include "binary/elf_binary.h"
#include "common/error.h"
#include "common/regular_file.h"
#include "common/same_file.h"
#include "recording/binary_archive.h"
#include "recording/build_id.h"
#include "recording/record_source.h"
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
std::set<MappedBinary> executable_files(const std::string& recording) {
  const std::unique_ptr<RecordSource> source = open_record_source(recording);
  RecordSource& reader = *source;
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
  ArchiveBuild(const ArchiveOptions& options, ArchiveResult& result)
      : options_(options), result_(result), writer_(result.output) {}

  void add(const MappedBinary& file) {
    if (file.build_id.empty()) return add_unidentified(file);
    if (!done_.insert(file.build_id).second) return;  // the same build-id under another path
    auto binary = open(file);
    if (!binary) return;
    if (binary->build_id() != file.build_id) {
      result_.changed.push_back(file.path);
      return;
    }
    store(ArchiveKind::kBinary, file, file.path, binary->file_bytes());
    add_debuginfo(binary, file);
  }

  void finish() {
    writer_.finish();
    result_.archive_bytes = writer_.bytes_written();
  }

 private:
  std::shared_ptr<ElfBinary> open(const MappedBinary& file) {
    auto opened = ElfBinary::open_file(file.path);
    if (opened.value && *opened.value) return *opened.value;
    result_.missing.push_back(file.path + ": " + (opened.reason.empty() ? "not an ELF file" : opened.reason));
    return nullptr;
  }

  // A mapping without a recorded build-id: archived, under the file's own
  // build-id, when the file is the one mapped (same device and inode).
  void add_unidentified(const MappedBinary& file) {
    if (file.inode == 0) {
      result_.without_build_id.push_back(file.path);
      return;
    }
    if (!done_paths_.insert(file.path).second) return;
    struct stat st {};
    if (::stat(file.path.c_str(), &st) == 0 &&
        (st.st_ino != file.inode || major(st.st_dev) != file.dev_major || minor(st.st_dev) != file.dev_minor)) {
      result_.not_the_mapped_file.push_back(file.path);
      return;
    }
    auto binary = open(file);
    if (!binary) return;
    if (binary->build_id().empty()) {
      result_.without_build_id.push_back(file.path);
      return;
    }
    MappedBinary identified = file;
    identified.build_id = binary->build_id();
    if (!done_.insert(identified.build_id).second) return;
    store(ArchiveKind::kBinary, identified, file.path, binary->file_bytes());
    add_debuginfo(binary, identified);
  }

  // The separate debuginfo the symbolizer finds for the binary (by
  // build-id, by .gnu_debuglink), when its DWARF is not in the binary itself.
  void add_debuginfo(const std::shared_ptr<ElfBinary>& binary, const MappedBinary& file) {
    const std::string debug = DebugInfo(binary, options_.symbols).dwarf_file();
    if (debug.empty() || debug == file.path) return;
    auto bytes = read_regular_file(debug, kMaxArchiveEntryBytes);
    if (!bytes) {
      result_.missing.push_back(debug + " (debuginfo of " + file.path + "): " + bytes.reason);
      return;
    }
    store(ArchiveKind::kDebuginfo, file, debug,
          Bytes(reinterpret_cast<const uint8_t*>(bytes.value->data()), bytes.value->size()));
  }

  void store(ArchiveKind kind, const MappedBinary& file, const std::string& path, Bytes bytes) {
    const uint64_t stored = writer_.add(kind, file.build_id, path, bytes);
    result_.stored.push_back({path, to_hex(file.build_id), kind == ArchiveKind::kDebuginfo, bytes.size(), stored});
  }

  const ArchiveOptions& options_;
  ArchiveResult& result_;
  ArchiveWriter writer_;
  std::set<std::vector<uint8_t>> done_;
  std::set<std::string> done_paths_;  // mappings without a recorded build-id
};

}  // namespace

ArchiveResult write_archive(const std::string& recording, const ArchiveOptions& options) {
  const std::set<MappedBinary> files = executable_files(recording);
  ArchiveResult result;
  result.output = options.output.empty() ? default_archive_path(recording) : options.output;
  check_output_is_not_an_input(result.output, {recording});
  ArchiveBuild build(options, result);
  for (const MappedBinary& f : files) build.add(f);
  build.finish();
  return result;
}

}  // namespace swprof
