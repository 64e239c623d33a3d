#pragma once
// Where a command writes its output: stdout, or a named file.
//
// A regular file, or a new one, appears only when it is complete: it is
// written beside its final place under a temporary name (FILE.tmp.PID), then
// renamed over it, so a failure never leaves a half-written or clobbered
// output behind. The temporary file is removed on failure and when a signal
// that ends the process arrives (common/temp_file_cleanup.h). Only a regular
// file named by the path itself is replaced, by a rename within its own
// directory.
//
// A path whose last component is a symbolic link is opened as it is: the
// kernel follows the link, with the checks it makes on the way, among them
// fs.protected_symlinks (another user's link in a sticky world-writable
// folder such as /tmp is not followed) and fs.protected_regular (another
// user's file there is not opened to be written). Resolving the link by
// hand and renaming over its target would skip both, and could replace a
// file in a folder the link merely points into. So the target, wherever
// it is, is written in place and never replaced. To keep it complete or
// untouched, the output is staged in an unnamed file in memory (memfd: no
// name anywhere, nothing to remove after a signal) and copied into the
// target at commit(), which keeps its inode, owner and permissions. The
// copy reserves the target's space first (fallocate), so a full disk fails
// before any old byte is overwritten; only an I/O error or a kill during
// the copy itself can leave it partly written. An existing target is
// opened at construction, so a link the kernel refuses fails before any
// work; a dangling link creates its target at commit().
//
// Anything else that already exists (a character device such as /dev/null or
// /dev/full, a FIFO, a socket), named directly or through links, is written
// in place: it is never replaced.
//
// Permissions: a new file gets 0666 less the umask, a replaced one keeps
// its own. Reports are derived data, and normal files like perf's reports;
// only recordings, which hold raw copies of stacks, are private
// (recording/recording_writer.h).

#include <sys/types.h>

#include <optional>
#include <ostream>
#include <streambuf>
#include <string>

#include "common/temp_file_cleanup.h"
#include "common/unique_fd.h"

namespace swprof {

// A buffered std::streambuf over a file descriptor that remembers the errno
// of the first failed write.
class FdOutputBuffer : public std::streambuf {
 public:
  FdOutputBuffer();
  void attach(int fd) { fd_ = fd; }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  bool drain();

  int fd_ = -1;
  int error_ = 0;
  char buffer_[1 << 16];
};

class OutputFile {
 public:
  // "" or "-": stdout. Throws Error when the file cannot be created.
  explicit OutputFile(const std::string& path);
  ~OutputFile();  // removes the temporary file unless commit() ran
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream();
  // Flushes and moves the file into place; throws Error on a write failure.
  void commit();

  // A device, FIFO or socket, written as the bytes come.
  bool in_place() const { return how_ == How::kInPlace; }

 private:
  enum class How { kStdout, kInPlace, kReplace, kThroughLink };

  void open_in_place();
  void open_temporary(std::optional<mode_t> mode);
  void open_through_link(bool target_exists);
  void open_target();
  void copy_into_target();
  [[noreturn]] void fail(int err) const;
  [[noreturn]] void replaced() const;

  std::string path_;  // as named
  How how_ = How::kStdout;
  std::string temp_;  // kReplace: written here, then renamed to path_
  UniqueFd fd_;       // what the stream writes: the device, the temporary file or the staging memfd
  UniqueFd target_;   // kThroughLink: the link's target, opened by the kernel through it (at commit when dangling)
  FdOutputBuffer buffer_;
  std::ostream file_{&buffer_};
  std::optional<TempFileCleanup> cleanup_;
  bool committed_ = false;
};

}  // namespace swprof
