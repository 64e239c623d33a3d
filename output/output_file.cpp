#include "output/output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>

#include "common/error.h"

namespace swprof {
namespace {

constexpr int kMaxSymlinks = 40;  // as the kernel's path walk (ELOOP)

std::string dirname_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The path a chain of symbolic links starting at `path` ends at: `path`
// itself when it is not a link. The end need not exist (a dangling link).
// nullopt: a loop.
std::optional<std::string> final_target(const std::string& path) {
  std::string current = path;
  for (int depth = 0; depth <= kMaxSymlinks; ++depth) {
    struct stat st;
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    std::string link(static_cast<size_t>(st.st_size > 0 ? st.st_size : PATH_MAX), '\0');
    const ssize_t n = ::readlink(current.c_str(), link.data(), link.size());
    if (n <= 0) return current;
    link.resize(static_cast<size_t>(n));
    current = link[0] == '/' ? link : dirname_of(current) + "/" + link;
  }
  return std::nullopt;
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
  struct stat st;
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) fail(errno);
  if (exists && S_ISDIR(st.st_mode)) fail(EISDIR);
  if (exists && !S_ISREG(st.st_mode)) {
    // Opened through its links as the kernel resolves them (also the magic
    // ones: /dev/stdout -> /proc/self/fd/1 -> a pipe or a terminal).
    target_ = path_;
    open_in_place();
  } else {
    auto target = final_target(path_);
    if (!target) fail(ELOOP);
    target_ = *target;
    open_temporary(exists ? std::optional<mode_t>(st.st_mode & 07777) : std::nullopt);
  }
  buffer_.attach(fd_.get());
}

OutputFile::~OutputFile() {
  if (!temp_.empty() && !committed_) {
    fd_.reset();
    ::unlink(temp_.c_str());
  }
}

// A device, FIFO or socket: written as it is (a FIFO waits for a reader).
void OutputFile::open_in_place() {
  fd_.reset(::open(target_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd_.valid()) fail(errno);
  struct stat st;
  if (::fstat(fd_.get(), &st) != 0) fail(errno);
  // Replaced by a regular file since the first look: writing into it would
  // leave its old tail behind.
  if (S_ISREG(st.st_mode)) throw Error("cannot write '" + path_ + "': it was replaced while being opened; run again");
}

// Beside the target, so that rename() is atomic. O_EXCL: never through a
// link or file someone placed at that name; a stale one of this pid is
// replaced.
void OutputFile::open_temporary(std::optional<mode_t> mode) {
  temp_ = target_ + ".tmp." + std::to_string(getpid());
  for (int attempt = 0; attempt < 2 && !fd_.valid(); ++attempt) {
    fd_.reset(::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666));
    if (!fd_.valid() && errno == EEXIST && attempt == 0) ::unlink(temp_.c_str());
  }
  if (!fd_.valid()) {
    const int err = errno;
    temp_.clear();  // nothing of ours to remove
    fail(err);
  }
  cleanup_.emplace(temp_);
  if (mode) (void)::fchmod(fd_.get(), *mode);  // a replaced file keeps its permissions
}

void OutputFile::fail(int err) const { throw Error("cannot write '" + path_ + "': " + errno_text(err)); }

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
  if (::close(fd_.release()) != 0 && errno != EINTR) fail(errno);
  if (!temp_.empty() && ::rename(temp_.c_str(), target_.c_str()) != 0) fail(errno);
  if (cleanup_) cleanup_->release();
  committed_ = true;
}

}  // namespace swprof
