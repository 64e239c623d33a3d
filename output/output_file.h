#pragma once
// Where a command writes its output: stdout, or a named file.
//
// A regular file (or a new one) appears only when it is complete: it is
// written beside its final place under a temporary name, then renamed over
// it, so a failure never leaves a half-written or clobbered output behind.
// The temporary file is removed on failure and on SIGINT, SIGTERM and SIGHUP.
//
// Anything else that already exists (a character device such as /dev/null or
// /dev/full, a FIFO, a socket) is written in place: it is never replaced.
// A symbolic link is followed to the file it ends at, which is then written
// as above; the link itself stays. A dangling link creates its target.

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

  // Where the bytes go: the file a symbolic link ends at, or the path itself.
  const std::string& target() const { return target_; }
  bool in_place() const { return temp_.empty(); }

 private:
  void open_in_place();
  void open_temporary(std::optional<mode_t> mode);
  [[noreturn]] void fail(int err) const;

  std::string path_;    // as named (for messages)
  std::string target_;  // where the bytes go
  std::string temp_;    // written here, then renamed to target_; "" when writing in place
  UniqueFd fd_;
  FdOutputBuffer buffer_;
  std::ostream file_{&buffer_};
  std::optional<TempFileCleanup> cleanup_;
  bool committed_ = false;
};

}  // namespace swprof
