#pragma once
// Where a file mapped by a process can be opened from here. A process in
// another mount namespace (a container) maps paths that name other files, or
// nothing, on the host; the kernel still shows its files through
// /proc/PID/root (the process's root directory, needs ptrace-read access) and
// /proc/PID/map_files/START-END (the mapped file itself, needs
// CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE), see proc(5).
//
// The process may be hostile (root in its container) and its files are its
// own to change: a path of it is resolved inside its root, never by joining
// it to /proc/PID/root (an absolute symbolic link there would be resolved
// against swprof's root and reach the host's files: /etc/shadow, a program
// only root may read), and a binary is taken only when it is provably the
// file mapped.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/regular_file.h"
#include "recording/build_id.h"

namespace swprof {

// A file mapping as the kernel reported it.
struct MappedFile {
  uint32_t pid = 0;
  std::string path;
  uint64_t start = 0;
  uint64_t end = 0;
  BuildId build_id;        // empty when unknown
  uint32_t dev_major = 0;  // 0/0/0 when unknown
  uint32_t dev_minor = 0;
  uint64_t inode = 0;
};

struct ResolvedFile {
  enum class Via { kHost, kProcRoot, kMapFiles };
  std::string open_path;  // where it was found: the path, /proc/PID/root + the path, or /proc/PID/map_files/START-END
  Via via = Via::kHost;
  std::string mount_ns;   // the process's, as /proc/PID/ns/mnt reads ("mnt:[4026532177]"); empty when unknown
  RegularFile file;       // opened: read this, never open_path again (the process may have changed it since)
};

// "host", "/proc/PID/root", "/proc/PID/map_files".
std::string describe_via(ResolvedFile::Via via, uint32_t pid);

class ProcessRoots {
 public:
  explicit ProcessRoots(std::string proc = "/proc");

  // Resolution order:
  //  1. the process shares our mount namespace: the path itself;
  //  2. otherwise the path itself when it is the mapped file (equal
  //     build-id; without one, equal device and inode);
  //  3. the path inside the process's root (open(), below), when it is the
  //     mapped file (the same test: a file inside a container reports the
  //     device and inode of the container's file system, as its mapping
  //     does; on overlayfs they differ, and 4 finds it);
  //  4. /proc/PID/map_files/START-END: the mapped file itself.
  // Only regular files are accepted. nullopt: none of them (the process may
  // have exited).
  std::optional<ResolvedFile> resolve(const MappedFile& file);

  // The one way a file of process `pid` is opened: `path` as the process
  // sees it. For a process of our mount namespace the path itself; for
  // another, the path resolved inside its root (/proc/PID/root), where
  // "..", absolute links and magic links cannot leave it
  // (open_regular_file_in_root).
  FileResult<RegularFile> open(uint32_t pid, const std::string& path, Links links = Links::kFollow);
  // Whether `pid` is in another mount namespace than ours (false when unknown).
  bool foreign(uint32_t pid);

  // /proc/PID/ns/mnt's link text, cached per pid until forget(pid) (an exec
  // may follow unshare); empty when unreadable.
  const std::string& mount_namespace(uint32_t pid);
  const std::string& own_mount_namespace() const { return own_ns_; }
  void forget(uint32_t pid) { ns_by_pid_.erase(pid); }

  // The JIT map the process writes as /tmp/perf-<its pid>.map inside its own
  // namespace: /tmp/perf-NSPID.map there (to be opened with open()), with
  // NSPID the last field of "NSpid:" in /proc/PID/status. nullopt when the
  // process shares our mount namespace (the map is then the host's
  // /tmp/perf-PID.map) or the status is unreadable.
  std::optional<std::string> perf_map_path(uint32_t pid);

  const std::string& proc() const { return proc_; }

 private:
  std::string pid_dir(uint32_t pid) const { return proc_ + "/" + std::to_string(pid); }

  std::string proc_;
  std::string own_ns_;
  std::unordered_map<uint32_t, std::string> ns_by_pid_;
};

// The last field of the "NSpid:" line of a /proc/PID/status text.
std::optional<uint32_t> parse_nspid(const std::string& status_text);

}  // namespace swprof
