#include "sampler/namespace_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "common/format.h"
#include "common/regular_file.h"
#include "recording/recording_format.h"

namespace swprof {
namespace {

// A record must fit in one chunk (recording_format.h); leave room for the rest of the chunk.
constexpr uint64_t kMaxEmbeddedFileBytes = kMaxChunkRawSize - (1u << 20);

MappedFile mapped_file_of(const MappingRecord& m) {
  MappedFile f;
  f.pid = m.pid;
  f.path = m.path;
  f.start = m.start;
  f.end = m.start + m.length;
  f.build_id.assign(m.build_id.begin(), m.build_id.begin() + m.build_id_size);
  f.dev_major = m.dev_major;
  f.dev_minor = m.dev_minor;
  f.inode = m.inode;
  return f;
}

Bytes bytes_of(const std::string& s) { return Bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

}  // namespace

void NamespaceFiles::resolve(MappingRecord& m, const ImageSink& sink) {
  if (m.path.empty() || m.path[0] != '/') return;
  const std::string& ns = roots_.mount_namespace(m.pid);
  const bool foreign = !ns.empty() && ns != roots_.own_mount_namespace();
  if (!perf_maps_.count(m.pid)) watch_perf_map(m.pid, foreign);
  if (!foreign && m.build_id_size > 0) return;  // nothing to learn about a host file
  const std::string key = ns + '\n' + m.path;
  auto it = build_ids_.find(key);
  if (it == build_ids_.end()) {
    BuildId id = foreign ? resolve_foreign(mapped_file_of(m), sink) : read_build_id(m.path).value_or(BuildId{});
    it = build_ids_.emplace(key, std::move(id)).first;
  }
  if (m.build_id_size > 0) return;
  m.build_id_size = static_cast<uint8_t>(std::min(it->second.size(), kBuildIdMax));
  std::copy_n(it->second.begin(), m.build_id_size, m.build_id.begin());
}

BuildId NamespaceFiles::resolve_foreign(const MappedFile& file, const ImageSink& sink) {
  NamespaceFileNote note{file.path, "", roots_.mount_namespace(file.pid), 0};
  auto found = roots_.resolve(file);
  if (!found) {
    notes_.push_back(std::move(note));
    return file.build_id;
  }
  BuildId id = file.build_id.empty() ? read_build_id(found->open_path).value_or(BuildId{}) : file.build_id;
  if (found->via == ResolvedFile::Via::kHost) return id;
  note.found_at = found->open_path;
  note.bytes = embed(file.path, found->open_path, sink);
  notes_.push_back(std::move(note));
  return id;
}

uint64_t NamespaceFiles::embed(const std::string& path, const std::string& open_path, const ImageSink& sink) {
  auto file = open_regular_file(open_path);
  if (!file) {
    warnings_.push_back("cannot read " + open_path + " (" + file.reason + "): " + path + " is not embedded");
    return 0;
  }
  char magic[4] = {};
  if (pread(file.value->fd.get(), magic, sizeof magic, 0) != 4 || std::memcmp(magic, "\x7f" "ELF", 4) != 0)
    return 0;  // not a binary (a memfd of generated code, ...): nothing a report could use
  const uint64_t size = file.value->size;
  if (size > kMaxEmbeddedFileBytes || embedded_bytes_ + size > embed_max_) {
    warnings_.push_back(path + " (" + human_bytes(size) + ") is not embedded: over " +
                        (size > kMaxEmbeddedFileBytes ? "the largest embeddable file (" + human_bytes(kMaxEmbeddedFileBytes)
                                                      : "--embed-max (" + human_bytes(embed_max_)) +
                        "); a report needs the file at that path");
    return 0;
  }
  auto bytes = read_regular_file(*file.value, size);
  if (!bytes) {
    warnings_.push_back("cannot read " + open_path + " (" + bytes.reason + "): " + path + " is not embedded");
    return 0;
  }
  sink(ImageRecord{embedded_file_image_name(path), bytes_of(*bytes.value)});
  embedded_bytes_ += bytes.value->size();
  return bytes.value->size();
}

void NamespaceFiles::watch_perf_map(uint32_t pid, bool foreign) {
  PerfMapCopy copy;
  if (foreign) {
    copy.path = roots_.perf_map_path(pid);
  } else {
    copy.path = host_perf_map_dir_ + "/perf-" + std::to_string(pid) + ".map";
    struct stat st;  // /proc/PID belongs to the process's user (this user's, when it is gone)
    const bool known = ::stat((roots_.proc() + "/" + std::to_string(pid)).c_str(), &st) == 0;
    copy.process_uid = known ? st.st_uid : geteuid();
  }
  perf_maps_.emplace(pid, std::move(copy));
}

// The whole lines of `path` from byte `from` on ("" when none are new). A
// host map (process_uid set) is read only when its owner could be its writer.
std::string NamespaceFiles::new_perf_map_lines(const std::string& path, uint64_t from,
                                               std::optional<uid_t> process_uid) {
  auto file = open_regular_file(path);
  if (!file || file.value->size <= from) return {};
  const uid_t owner = file.value->owner;
  if (process_uid && owner != 0 && owner != geteuid() && owner != *process_uid) return {};
  std::string text(std::min<uint64_t>(file.value->size - from, kMaxEmbeddedFileBytes), '\0');
  const ssize_t n = pread(file.value->fd.get(), text.data(), text.size(), static_cast<off_t>(from));
  text.resize(n > 0 ? static_cast<size_t>(n) : 0);
  const size_t last_newline = text.rfind('\n');
  text.resize(last_newline == std::string::npos ? 0 : last_newline + 1);  // a line being written waits
  return text;
}

void NamespaceFiles::copy_perf_maps(const ImageSink& sink) {
  for (auto& [pid, copy] : perf_maps_) {
    if (!copy.path) continue;
    const std::string lines = new_perf_map_lines(*copy.path, copy.bytes, copy.process_uid);
    if (lines.empty()) continue;
    sink(ImageRecord{perf_map_image_name(pid), bytes_of(lines)});
    copy.bytes += lines.size();
  }
}

}  // namespace swprof
