#pragma once
// The files of processes in other mount namespaces (containers), captured
// while the processes live. A mapped path there names another file, or none,
// on the host, and the namespace is usually gone by the time a report runs:
// such a binary is found through /proc (sampler/process_root.h) and embedded
// into the recording as an image (embedded_file_image_name), which the report side
// uses before the file system. A JIT's perf map is embedded too
// (perf_map_image_name), for every process that writes one (in its
// namespace's /tmp, or the host's): a report after the map file is gone,
// or on another machine, still names the JIT's code.

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
  // Copies the lines added since the last call to the perf maps of the
  // processes resolve() has seen (a perf map only grows: each image holds
  // the lines that follow the previous one's). A host process's map in the
  // world-writable /tmp is copied only when owned by root, this user, or
  // the process's own user.
  void copy_perf_maps(const ImageSink& sink);
  // Where host processes write their perf maps (tests point it elsewhere).
  void set_host_perf_map_dir(std::string dir) { host_perf_map_dir_ = std::move(dir); }
  // An exec or an exit: the pid's namespace is read again next time.
  void forget(uint32_t pid) { roots_.forget(pid); }

  uint64_t embedded_bytes() const { return embedded_bytes_; }
  const std::vector<NamespaceFileNote>& notes() const { return notes_; }
  // Files over --embed-max, and the like: one line each, for the person.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  BuildId resolve_foreign(const MappedFile& file, const ImageSink& sink);
  uint64_t embed(const std::string& path, const std::string& open_path, const ImageSink& sink);
  void watch_perf_map(uint32_t pid, bool foreign);
  static std::string new_perf_map_lines(const std::string& path, uint64_t from, std::optional<uid_t> process_uid);

  uint64_t embed_max_;
  ProcessRoots roots_;
  std::unordered_map<std::string, BuildId> build_ids_;  // by mount ns + '\n' + path
  struct PerfMapCopy {
    std::optional<std::string> path;  // /proc/PID/root/tmp/perf-NSPID.map, or <host dir>/perf-PID.map
    uint64_t bytes = 0;               // copied so far
    std::optional<uid_t> process_uid;  // a host process's user, who may own its map
  };
  std::unordered_map<uint32_t, PerfMapCopy> perf_maps_;  // by pid
  std::string host_perf_map_dir_ = "/tmp";
  uint64_t embedded_bytes_ = 0;
  std::vector<NamespaceFileNote> notes_;
  std::vector<std::string> warnings_;
};

}  // namespace swprof
