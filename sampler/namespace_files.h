#pragma once
// The files of processes in other mount namespaces (containers), captured
// while the processes live. A mapped path there names another file, or none,
// on the host, and the namespace is usually gone by the time a report runs:
// such a binary is found through /proc (sampler/process_root.h) and embedded
// into the recording as an image (embedded_file_image_name), which the report side
// uses before the file system. A JIT's perf map is embedded too
// (perf_map_image_name), for every process that writes one (in its
// namespace's /tmp, or the host's): a report after the map file is gone,
// or on another machine, still names the JIT's code. A map is copied only
// when it is a regular file (never through a link at its name) owned by
// root, this user or the process's user, and up to a bound per process and
// per recording (PerfMapLimits): a map can grow without end, or be sparse.

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

// How much of the JIT perf maps is read into a recording.
struct PerfMapLimits {
  uint64_t per_process = kDefaultPerfMapMaxBytes;                  // --perf-map-max
  uint64_t per_recording = kPerfMapsPerRecording * kDefaultPerfMapMaxBytes;  // every process's together
  // Read from one map by one copy_perf_maps(kStep), so that the recording
  // loop soon goes back to the rings: a map that grows faster is caught up
  // with in later steps, and at the end.
  uint64_t per_step = uint64_t{16} << 20;

  // The limits of --perf-map-max SIZE.
  static PerfMapLimits per_process_max(uint64_t bytes);
};

// One copy of the perf maps: a step while recording, or at the end everything
// (up to the bounds) that is there.
enum class PerfMapRound { kStep, kToTheEnd };

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

  explicit NamespaceFiles(uint64_t embed_max = kDefaultEmbedMaxBytes, ProcessRoots roots = ProcessRoots(),
                          PerfMapLimits perf_map_limits = {})
      : embed_max_(embed_max), roots_(std::move(roots)), perf_map_limits_(perf_map_limits) {}

  // Fills m's build-id when the kernel left it out (read once per mount
  // namespace and path), and the first time a file is found only inside the
  // process's namespace, hands its bytes to `sink` (to be written before m).
  void resolve(MappingRecord& m, const ImageSink& sink);
  // Copies the lines added since the last call to the perf maps of the
  // processes resolve() has seen (a perf map only grows: each image holds
  // the lines that follow the previous one's). A map (in the world-writable
  // /tmp, or in a container's, which its root controls) is copied only when
  // its name is the file itself (no symbolic link, no second hard link) and
  // it is owned by root, this user, or the process's own user. Past a bound
  // of PerfMapLimits nothing more of a map is read, and a warning says so.
  void copy_perf_maps(const ImageSink& sink, PerfMapRound round = PerfMapRound::kStep);
  // Process `pid` exited: its map is no longer looked at every step (so
  // the maps of many short processes do not cost a look each), only once
  // more by the last round (PerfMapRound::kToTheEnd), whose copies a report
  // reads before any sample (a copy made now would come after the samples
  // it names).
  void process_exited(uint32_t pid);
  // Processes whose perf maps each step looks at (tests).
  size_t watched_perf_maps() const;
  // Where host processes write their perf maps (tests point it elsewhere).
  void set_host_perf_map_dir(std::string dir) { host_perf_map_dir_ = std::move(dir); }
  // An exec or an exit: the pid's namespace is read again next time.
  void forget(uint32_t pid) { roots_.forget(pid); }

  uint64_t embedded_bytes() const { return embedded_bytes_; }
  // Read from the perf maps so far, in all (copied, and a line being written).
  uint64_t perf_map_bytes() const { return perf_map_bytes_; }
  const std::vector<NamespaceFileNote>& notes() const { return notes_; }
  // Files over --embed-max, perf maps over their bounds or skipped, and the
  // like: one line each, for the person.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  struct PerfMapCopy {
    std::optional<std::string> path;  // as the process names it: /tmp/perf-NSPID.map in its namespace, or <host dir>/perf-PID.map
    uid_t process_uid = 0;            // the process's user, who may own its map
    uint64_t bytes = 0;               // read so far: copied, then `pending`
    uint64_t seen_size = 0;           // the largest size it had when opened
    std::string pending;              // read after the last whole line (a line being written)
    bool skipping_line = false;       // dropping the rest of a line too long to be a JIT's
    bool refused_said = false;        // a warning told why the map is not read
    bool stopped = false;             // over a bound: read no more
    bool exited = false;              // the process is gone: only the last round reads it
  };

  BuildId resolve_foreign(const MappedFile& file, const ImageSink& sink);
  uint64_t embed(const std::string& path, ResolvedFile& found, const ImageSink& sink);
  void watch_perf_map(uint32_t pid, bool foreign);
  std::optional<RegularFile> open_perf_map(uint32_t pid, PerfMapCopy& copy);
  bool copy_perf_map(uint32_t pid, PerfMapCopy& copy, RegularFile& file, uint64_t most, const ImageSink& sink);
  void hand_whole_lines(uint32_t pid, PerfMapCopy& copy, size_t fresh, const ImageSink& sink);
  void stop_at_bound(uint32_t pid, PerfMapCopy& copy);
  void copy_perf_map_round(uint32_t pid, PerfMapCopy& copy, const ImageSink& sink, PerfMapRound round);

  uint64_t embed_max_;
  ProcessRoots roots_;
  PerfMapLimits perf_map_limits_;
  std::unordered_map<std::string, BuildId> build_ids_;  // by mount ns + '\n' + path
  std::unordered_map<uint32_t, PerfMapCopy> perf_maps_;  // by pid
  std::string host_perf_map_dir_ = "/tmp";
  uint64_t perf_map_bytes_ = 0;
  bool recording_bound_said_ = false;
  uint64_t embedded_bytes_ = 0;
  std::vector<NamespaceFileNote> notes_;
  std::vector<std::string> warnings_;
};

}  // namespace swprof
