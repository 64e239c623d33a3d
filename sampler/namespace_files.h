#pragma once
// The files of processes in other mount namespaces (containers), captured
// while the processes live. A mapped path there names another file, or none,
// on the host, and the namespace is usually gone by the time a report runs:
// such a binary is found through /proc (sampler/process_root.h) and embedded
// into the recording as an image (embedded_file_image_name), which the report side
// uses before the file system. A JIT's perf map, written inside the
// namespace, is embedded too (perf_map_image_name).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "recording/records.h"
#include "sampler/event_spec.h"
#include "sampler/process_root.h"

namespace swprof {

// Where a file that is not on the host was found, and what became of it.
struct NamespaceFileNote {
  std::string path;      // as the process mapped it
  std::string found_at;  // the path it was read from; empty: not found
  std::string mount_ns;  // "mnt:[4026532177]"
  uint64_t bytes = 0;    // embedded; 0 when not
};

class NamespaceFiles {
 public:
  using ImageSink = std::function<void(const ImageRecord&)>;

  explicit NamespaceFiles(uint64_t embed_max = kDefaultEmbedMaxBytes, ProcessRoots roots = ProcessRoots())
      : embed_max_(embed_max), roots_(std::move(roots)) {}

  // Fills m's build-id when the kernel left it out (read once per mount
  // namespace and path), and the first time a file is found only inside the
  // process's namespace, hands its bytes to `sink` (to be written before m).
  void resolve(MappingRecord& m, const ImageSink& sink);
  // Copies the lines added since the last call to the perf maps of
  // processes in other namespaces (a perf map only grows: each image holds
  // the lines that follow the previous one's).
  void copy_perf_maps(const ImageSink& sink);
  // An exec or an exit: the pid's namespace is read again next time.
  void forget(uint32_t pid) { roots_.forget(pid); }

  uint64_t embedded_bytes() const { return embedded_bytes_; }
  const std::vector<NamespaceFileNote>& notes() const { return notes_; }
  // Files over --embed-max, and the like: one line each, for the person.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  BuildId resolve_foreign(const MappedFile& file, const ImageSink& sink);
  uint64_t embed(const std::string& path, const std::string& open_path, const ImageSink& sink);
  static std::string new_perf_map_lines(const std::string& path, uint64_t from);

  uint64_t embed_max_;
  ProcessRoots roots_;
  std::unordered_map<std::string, BuildId> build_ids_;  // by mount ns + '\n' + path
  struct PerfMapCopy {
    std::optional<std::string> path;  // /proc/PID/root/tmp/perf-NSPID.map
    uint64_t bytes = 0;               // copied so far
  };
  std::unordered_map<uint32_t, PerfMapCopy> perf_maps_;  // processes in other namespaces
  uint64_t embedded_bytes_ = 0;
  std::vector<NamespaceFileNote> notes_;
  std::vector<std::string> warnings_;
};

}  // namespace swprof
