#pragma once
// Opening and reading files named by a recording or derived from it (mapped
// binaries, debuginfo, perf maps, /proc and /sys files). Such a path may name
// a FIFO, which would block open() or read() forever, or a device such as
// /dev/zero, which never ends: only regular files are opened, without ever
// blocking, and reads are bounded by the file's size and a caller's maximum.
// A file of another process's root directory (a container's, through
// /proc/PID/root) is opened as that process would see it, never reaching a
// file outside that root (open_regular_file_in_root).

#include <sys/types.h>

#include <cerrno>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/unique_fd.h"

namespace swprof {

struct RegularFile {
  UniqueFd fd;        // read-only, close-on-exec, blocking (O_NONBLOCK cleared)
  uint64_t size = 0;  // st_size when opened (0 for most /proc and /sys files)
  uid_t owner = 0;
  dev_t device = 0;   // st_dev and st_ino: which file it is
  ino_t inode = 0;
  nlink_t links = 0;  // st_nlink: names the file has (a hard link made elsewhere is another)
};

// A value, or why there is none.
template <class T>
struct FileResult {
  std::optional<T> value;
  std::string reason;  // "is a FIFO, not a regular file", "No such file or directory", ...
  int error = 0;       // the errno behind `reason`, 0 when the file is of the wrong kind or too large

  explicit operator bool() const { return value.has_value(); }
  bool missing() const { return error == ENOENT || error == ENOTDIR; }

  // The same failure, as a result of another type.
  template <class U>
  FileResult<U> failure_as() && {
    FileResult<U> r;
    r.reason = std::move(reason);
    r.error = error;
    return r;
  }
};

// "a FIFO", "a character device", ... for a st_mode.
std::string file_kind(mode_t mode);

// Which symbolic links of a path are followed.
enum class Links {
  kFollow,    // all, as open(2) does
  kNotFinal,  // all but the last component (O_NOFOLLOW): a link there is refused, never what it names
};

// The open file `fd` (invalid: errno says why) when it is a regular file:
// made blocking, with its size, owner, device, inode and link count.
FileResult<RegularFile> regular_file_of(UniqueFd fd);

// Opens `path` read-only when it is a regular file. Anything else is
// refused before it is opened, and the open itself uses O_NONBLOCK and is
// checked with fstat, so a FIFO swapped in meanwhile cannot block either.
FileResult<RegularFile> open_regular_file(const std::string& path, Links links = Links::kFollow);

// The same for `path` (absolute, or relative to the root) inside the folder
// `root` (a descriptor of a directory, e.g. of /proc/PID/root), resolved as
// if `root` were "/": "..", absolute symbolic links and links with ".."
// stay inside it, and magic links (/proc/self/..., /proc/PID/fd/...) are
// refused, so no name inside can reach a file outside (openat2(2) with
// RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS, Linux 5.6). Where the kernel has
// no openat2 the path is walked by open_regular_file_in_root_without_links.
FileResult<RegularFile> open_regular_file_in_root(int root, const std::string& path, Links links = Links::kFollow);

// The stricter walk of the same: one component at a time, each opened with
// O_NOFOLLOW, so that any symbolic link on the way (or at the end), and any
// "..", is refused (ELOOP, EXDEV).
FileResult<RegularFile> open_regular_file_in_root_without_links(int root, const std::string& path);

// The whole file, at most its size when opened (a file that grows is read
// up to that size). A file reporting size 0 (procfs) is read to its end.
// Either way, more than `max_bytes` is refused.
FileResult<std::string> read_regular_file(RegularFile& file, uint64_t max_bytes);
FileResult<std::string> read_regular_file(const std::string& path, uint64_t max_bytes);

// The same, for a large file read to be kept: it is read into an
// AnonymousBuffer (filled in huge pages where the kernel gives them), for a
// file of size 0 (procfs) one of `max_bytes` of which only the pages read
// into are backed. `text` views the bytes, `owner` keeps them.
struct FileText {
  std::shared_ptr<const void> owner;
  std::string_view text;
};
FileResult<FileText> read_regular_file_text(const std::string& path, uint64_t max_bytes);

}  // namespace swprof
