#include "sampler/namespace_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "common/format.h"
#include "common/regular_file.h"
#include "recording/recording_format.h"

namespace swprof {
namespace {

// A record must fit in one chunk (recording_format.h); leave room for the rest of the chunk.
constexpr uint64_t kMaxEmbeddedFileBytes = kMaxChunkRawSize - (1u << 20);

// A perf map line longer than this is no JIT's (a sparse file's hole, a
// damaged file): dropped. An image of lines holds at most a step and one line.
constexpr uint64_t kMaxPerfMapLineBytes = uint64_t{1} << 20;
constexpr uint64_t kMaxPerfMapStepBytes = kMaxEmbeddedFileBytes - kMaxPerfMapLineBytes;

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

// Reads n bytes at `offset` unless the file ends first: how many; nullopt when a read fails.
std::optional<size_t> pread_fully(int fd, char* dst, size_t n, uint64_t offset) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, dst + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return std::nullopt;
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return got;
}

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
  BuildId id = file.build_id.empty() ? read_build_id_of_fd(found->file.fd.get()).value_or(BuildId{}) : file.build_id;
  if (found->via == ResolvedFile::Via::kHost) return id;
  note.found_at = found->open_path;
  note.bytes = embed(file.path, *found, sink);
  notes_.push_back(std::move(note));
  return id;
}

uint64_t NamespaceFiles::embed(const std::string& path, ResolvedFile& found, const ImageSink& sink) {
  RegularFile& file = found.file;
  char magic[4] = {};
  if (pread(file.fd.get(), magic, sizeof magic, 0) != 4 || std::memcmp(magic, "\x7f" "ELF", 4) != 0)
    return 0;  // not a binary (a memfd of generated code, ...): nothing a report could use
  const uint64_t size = file.size;
  if (size > kMaxEmbeddedFileBytes || embedded_bytes_ + size > embed_max_) {
    warnings_.push_back(path + " (" + human_bytes(size) + ") is not embedded: over " +
                        (size > kMaxEmbeddedFileBytes ? "the largest embeddable file (" + human_bytes(kMaxEmbeddedFileBytes)
                                                      : "--embed-max (" + human_bytes(embed_max_)) +
                        "); a report needs the file at that path");
    return 0;
  }
  const auto unreadable = [&](const std::string& reason) {
    warnings_.push_back("cannot read " + found.open_path + " (" + reason + "): " + path + " is not embedded");
    return uint64_t{0};
  };
  if (::lseek(file.fd.get(), 0, SEEK_SET) != 0) return unreadable(errno_text(errno));  // the build-id was read from it
  auto bytes = read_regular_file(file, size);
  if (!bytes) return unreadable(bytes.reason);
  sink(ImageRecord{embedded_file_image_name(path), bytes_of(*bytes.value)});
  embedded_bytes_ += bytes.value->size();
  return bytes.value->size();
}

void NamespaceFiles::watch_perf_map(uint32_t pid, bool foreign) {
  PerfMapCopy copy;
  copy.path = foreign ? roots_.perf_map_path(pid) : host_perf_map_dir_ + "/perf-" + std::to_string(pid) + ".map";
  struct stat st;  // /proc/PID belongs to the process's user (this user's, when it is gone)
  const bool known = ::stat((roots_.proc() + "/" + std::to_string(pid)).c_str(), &st) == 0;
  copy.process_uid = known ? st.st_uid : geteuid();
  perf_maps_.emplace(pid, std::move(copy));
}

// The map, when it may be read: the file at its name itself (opened as the
// process names it, without following a link there), with no other name,
// owned by root, this user or the process's user, who alone could have
// written it. Otherwise nullopt, and the first time a warning.
std::optional<RegularFile> NamespaceFiles::open_perf_map(uint32_t pid, PerfMapCopy& copy) {
  auto file = roots_.open(pid, *copy.path, Links::kNotFinal);
  std::string refused;
  if (!file) {
    if (file.missing()) return std::nullopt;  // none written (yet)
    refused = file.reason;
  } else if (const uid_t owner = file.value->owner; owner != 0 && owner != geteuid() && owner != copy.process_uid) {
    refused = "owned by uid " + std::to_string(owner) + ", not by root, this user or the process's user";
  } else if (file.value->links > 1) {
    refused = "it has " + std::to_string(file.value->links) + " names (hard links), so its owner need not be who put it there";
  } else {
    return std::move(*file.value);
  }
  if (!copy.refused_said)
    warnings_.push_back("skipped the JIT map of process " + std::to_string(pid) + " (" + *copy.path + "): " + refused);
  copy.refused_said = true;
  return std::nullopt;
}

// Reads at most `most` new bytes of `file` (and no more than the bounds
// leave), and hands the whole lines among them to `sink`. False when
// nothing was read.
bool NamespaceFiles::copy_perf_map(uint32_t pid, PerfMapCopy& copy, RegularFile& file, uint64_t most,
                                   const ImageSink& sink) {
  if (copy.stopped || file.size <= copy.bytes) return false;  // nothing new (or a map cut short: its old lines stand)
  const PerfMapLimits& limits = perf_map_limits_;
  const uint64_t allowed = std::min(limits.per_process - std::min(copy.bytes, limits.per_process),
                                    limits.per_recording - std::min(perf_map_bytes_, limits.per_recording));
  const uint64_t want = std::min({file.size - copy.bytes, allowed, most, kMaxPerfMapStepBytes});
  const size_t at = copy.pending.size();
  copy.pending.resize(at + want);
  const std::optional<size_t> got = pread_fully(file.fd.get(), copy.pending.data() + at, want, copy.bytes);
  copy.pending.resize(at + got.value_or(0));
  copy.bytes += got.value_or(0);
  perf_map_bytes_ += got.value_or(0);
  hand_whole_lines(pid, copy, at, sink);
  if (got.value_or(0) == allowed && file.size > copy.bytes) stop_at_bound(pid, copy);
  return got.value_or(0) > 0;
}

// Hands copy.pending's whole lines to `sink`, keeping the line being written
// (bytes from `fresh` on were just read). A "line" longer than any a JIT
// writes (a sparse file's hole) is dropped up to its end.
void NamespaceFiles::hand_whole_lines(uint32_t pid, PerfMapCopy& copy, size_t fresh, const ImageSink& sink) {
  if (copy.skipping_line) {
    const size_t end = copy.pending.find('\n', fresh);
    copy.pending.erase(0, end == std::string::npos ? std::string::npos : end + 1);
    if (end == std::string::npos) return;
    copy.skipping_line = false;
  }
  const size_t last_newline = copy.pending.rfind('\n');
  if (last_newline != std::string::npos) {
    sink(ImageRecord{perf_map_image_name(pid), Bytes(reinterpret_cast<const uint8_t*>(copy.pending.data()), last_newline + 1)});
    copy.pending.erase(0, last_newline + 1);
  }
  if (copy.pending.size() > kMaxPerfMapLineBytes) {
    copy.pending.clear();
    copy.skipping_line = true;
  }
}

void NamespaceFiles::stop_at_bound(uint32_t pid, PerfMapCopy& copy) {
  copy.stopped = true;
  copy.pending = std::string();
  const PerfMapLimits& limits = perf_map_limits_;
  const std::string map = "process " + std::to_string(pid) + " (" + *copy.path + ")";
  if (copy.bytes >= limits.per_process) {
    warnings_.push_back("the JIT map of " + map + " is over --perf-map-max (" + human_bytes(limits.per_process) +
                        "): its lines after the first " + human_bytes(limits.per_process) +
                        " are not copied, and code they name is unnamed in reports");
  } else if (!recording_bound_said_) {
    recording_bound_said_ = true;
    warnings_.push_back("the JIT maps reached " + human_bytes(limits.per_recording) + " in all (" +
                        std::to_string(kPerfMapsPerRecording) + " x --perf-map-max): the later lines of " + map +
                        ", and of any other, are not copied");
  }
}

void NamespaceFiles::copy_perf_map_round(uint32_t pid, PerfMapCopy& copy, const ImageSink& sink, PerfMapRound round) {
  if (!copy.path || copy.stopped) return;
  if (auto file = open_perf_map(pid, copy)) {
    copy.seen_size = std::max(copy.seen_size, file->size);
    bool more = copy_perf_map(pid, copy, *file, perf_map_limits_.per_step, sink);
    while (more && round == PerfMapRound::kToTheEnd) more = copy_perf_map(pid, copy, *file, perf_map_limits_.per_step, sink);
  }
  if (round == PerfMapRound::kToTheEnd && !copy.stopped && copy.seen_size > copy.bytes)  // it went with its namespace
    warnings_.push_back("the JIT map of process " + std::to_string(pid) + " (" + *copy.path + ") grew faster than it " +
                        "was copied: its last " + human_bytes(copy.seen_size - copy.bytes) + " were not copied");
}

void NamespaceFiles::copy_perf_maps(const ImageSink& sink, PerfMapRound round) {
  for (auto& [pid, copy] : perf_maps_)
    if (round == PerfMapRound::kToTheEnd || !copy.exited) copy_perf_map_round(pid, copy, sink, round);
}

void NamespaceFiles::process_exited(uint32_t pid) {
  roots_.forget(pid);
  if (auto it = perf_maps_.find(pid); it != perf_maps_.end()) it->second.exited = true;
}

size_t NamespaceFiles::watched_perf_maps() const {
  return static_cast<size_t>(std::count_if(perf_maps_.begin(), perf_maps_.end(), [](const auto& m) { return !m.second.exited; }));
}

PerfMapLimits PerfMapLimits::per_process_max(uint64_t bytes) {
  PerfMapLimits limits;
  limits.per_process = bytes;
  limits.per_recording = bytes > UINT64_MAX / kPerfMapsPerRecording ? UINT64_MAX : bytes * kPerfMapsPerRecording;
  return limits;
}

}  // namespace swprof
