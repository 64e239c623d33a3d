#include "output/output_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>

#include "common/error.h"

namespace swprof {
namespace {

// A link's target, opened through the link. O_CREAT even for one that
// exists: the kernel then applies fs.protected_regular too (another user's
// file in a sticky world-writable folder). O_NONBLOCK: a FIFO put there
// since the first look fails to open instead of waiting for a reader (a
// regular file ignores the flag).
constexpr int kTargetFlags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;

bool is_symlink(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

}  // namespace

FdOutputBuffer::FdOutputBuffer() { setp(buffer_, buffer_ + sizeof buffer_); }

bool FdOutputBuffer::drain() {
  const char* p = pbase();
  while (p < pptr() && error_ == 0) {
    const ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) error_ = errno;
    else p += n;
  }
  setp(buffer_, buffer_ + sizeof buffer_);  // after an error, later bytes are dropped
  return error_ == 0;
}

FdOutputBuffer::int_type FdOutputBuffer::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int FdOutputBuffer::sync() { return drain() ? 0 : -1; }

OutputFile::OutputFile(const std::string& path) : path_(path == "-" ? "" : path) {
  if (path_.empty()) return;
  struct stat st;  // through links, as the kernel resolves them
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) fail(errno);
  if (exists && S_ISDIR(st.st_mode)) fail(EISDIR);
  if (exists && !S_ISREG(st.st_mode)) open_in_place();  // also /dev/stdout -> /proc/self/fd/1 -> a pipe
  else if (is_symlink(path_)) open_through_link(exists);
  else open_temporary(exists ? std::optional<mode_t>(st.st_mode & 07777) : std::nullopt);
  buffer_.attach(fd_.get());
}

OutputFile::~OutputFile() {
  if (how_ == How::kReplace && !committed_) {
    fd_.reset();
    ::unlink(temp_.c_str());
  }
}

// A device, FIFO or socket: written as it is (a FIFO waits for a reader).
void OutputFile::open_in_place() {
  how_ = How::kInPlace;
  fd_.reset(::open(path_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd_.valid()) fail(errno);
  struct stat st;
  if (::fstat(fd_.get(), &st) != 0) fail(errno);
  // Replaced by a regular file since the first look: writing into it would
  // leave its old tail behind.
  if (S_ISREG(st.st_mode)) replaced();
}

// Beside the file, so that rename() is atomic. O_EXCL: never through a link
// or file someone placed at that name; a stale one of this pid is replaced.
// The name is registered for removal before the file is made, so a signal
// at any moment after it exists removes it.
void OutputFile::open_temporary(std::optional<mode_t> mode) {
  temp_ = path_ + ".tmp." + std::to_string(getpid());
  cleanup_.emplace(temp_);
  for (int attempt = 0; attempt < 2 && !fd_.valid(); ++attempt) {
    fd_.reset(::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666));
    if (!fd_.valid() && errno == EEXIST && attempt == 0) ::unlink(temp_.c_str());
  }
  if (!fd_.valid()) {
    const int err = errno;
    cleanup_.reset();  // nothing of ours at that name
    fail(err);
  }
  how_ = How::kReplace;  // from now on there is a file of ours to remove
  if (mode) (void)::fchmod(fd_.get(), *mode);  // a replaced file keeps its permissions
}

// The stream goes to memory; the target is opened now when it exists (the
// kernel's checks fail before any work), at commit() when the link dangles.
void OutputFile::open_through_link(bool target_exists) {
  how_ = How::kThroughLink;
  if (target_exists) open_target();
  fd_.reset(::memfd_create("swprof-output", MFD_CLOEXEC));
  if (!fd_.valid()) fail(errno);
}

void OutputFile::open_target() {
  target_.reset(::open(path_.c_str(), kTargetFlags, 0666));
  if (!target_.valid()) fail(errno);
  struct stat st;
  if (::fstat(target_.get(), &st) != 0) fail(errno);
  if (!S_ISREG(st.st_mode)) replaced();
}

// The staged bytes over the target's, then its old tail cut.
void OutputFile::copy_into_target() {
  if (!target_.valid()) open_target();
  const off_t size = ::lseek(fd_.get(), 0, SEEK_CUR);
  if (size < 0) fail(errno);
  // Space reserved before the first old byte changes: a full disk or quota
  // fails here, the target as it was. A file system without fallocate()
  // skips the reservation.
  if (size > 0 && ::fallocate(target_.get(), FALLOC_FL_KEEP_SIZE, 0, size) != 0 && (errno == ENOSPC || errno == EDQUOT))
    fail(errno);
  off_t from = 0;
  while (from < size) {
    const ssize_t n = ::sendfile(target_.get(), fd_.get(), &from, static_cast<size_t>(size - from));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(n < 0 ? errno : EIO);
  }
  if (::ftruncate(target_.get(), size) != 0) fail(errno);
  if (::close(target_.release()) != 0 && errno != EINTR) fail(errno);
}

void OutputFile::fail(int err) const { throw Error("cannot write '" + path_ + "': " + errno_text(err)); }

void OutputFile::replaced() const {
  throw Error("cannot write '" + path_ + "': it was replaced while being opened; run again");
}

std::ostream& OutputFile::stream() { return path_.empty() ? std::cout : file_; }

void OutputFile::commit() {
  if (path_.empty()) {
    std::cout.flush();
    if (!std::cout) throw Error("cannot write to standard output");
    committed_ = true;
    return;
  }
  file_.flush();
  if (buffer_.error() != 0) fail(buffer_.error());
  if (!file_) fail(EIO);
  if (how_ == How::kThroughLink) copy_into_target();
  if (::close(fd_.release()) != 0 && errno != EINTR) fail(errno);
  if (how_ == How::kReplace && ::rename(temp_.c_str(), path_.c_str()) != 0) fail(errno);
  if (cleanup_) cleanup_->release();
  committed_ = true;
}

}  // namespace swprof
