#include "common/regular_file.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>
#include <vector>

#include "common/anonymous_buffer.h"
#include "common/error.h"

namespace swprof {
namespace {

template <class T>
FileResult<T> failure(int err) {
  FileResult<T> r;
  r.error = err;
  r.reason = errno_text(err);
  return r;
}

template <class T>
FileResult<T> not_regular(mode_t mode) {
  FileResult<T> r;
  r.reason = "is " + file_kind(mode) + ", not a regular file";
  return r;
}

std::string size_text(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

FileResult<std::string> too_large(uint64_t max_bytes) {
  FileResult<std::string> r;
  r.reason = "larger than " + size_text(max_bytes);
  return r;
}

// Reads into dst until n bytes are read or the file ends: how many; nullopt
// (and errno in err) when a read fails.
std::optional<size_t> read_fully(int fd, void* dst, size_t n, int& err) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, static_cast<char*>(dst) + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      err = errno;
      return std::nullopt;
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return got;
}

// Reads up to `limit` bytes, `chunk` at a time; stops early at the end of
// the file. (Each chunk is zero-filled before it is read into: a file of
// unknown size, which procfs gives a page per read, is read 64 KiB at a time.)
bool read_up_to(int fd, uint64_t limit, size_t chunk, std::string& out, int& err) {
  while (out.size() < limit) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(chunk, limit - out.size()));
    const size_t at = out.size();
    out.resize(at + want);
    const std::optional<size_t> got = read_fully(fd, out.data() + at, want, err);
    if (!got) return false;
    out.resize(at + *got);
    if (*got < want) break;  // the end of the file
  }
  return true;
}

}  // namespace

FileResult<RegularFile> regular_file_of(UniqueFd fd) {
  if (!fd.valid()) return failure<RegularFile>(errno);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return failure<RegularFile>(errno);
  if (!S_ISREG(st.st_mode)) return not_regular<RegularFile>(st.st_mode);
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) return failure<RegularFile>(errno);
  FileResult<RegularFile> r;
  r.value.emplace();
  r.value->fd = std::move(fd);
  r.value->size = static_cast<uint64_t>(st.st_size);
  r.value->owner = st.st_uid;
  r.value->device = st.st_dev;
  r.value->inode = st.st_ino;
  r.value->links = st.st_nlink;
  return r;
}

namespace {

constexpr int kReadFlags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;

int no_follow_flag(Links links) { return links == Links::kFollow ? 0 : O_NOFOLLOW; }

// openat2(root, path, flags) resolved inside root; -1 with errno ENOSYS
// where the kernel (or a seccomp filter) has no openat2.
int open_in_root(int root, const std::string& path, int flags) {
#ifdef SYS_openat2
  open_how how{};
  how.flags = static_cast<uint64_t>(flags);
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, root, path.c_str(), &how, sizeof how));
#else
  errno = ENOSYS;
  return -1;
#endif
}

// The components of a path, without the empty ones and ".".
std::vector<std::string> path_components(const std::string& path) {
  std::vector<std::string> parts;
  size_t at = 0;
  while (at <= path.size()) {
    const size_t slash = std::min(path.find('/', at), path.size());
    std::string part = path.substr(at, slash - at);
    if (!part.empty() && part != ".") parts.push_back(std::move(part));
    at = slash + 1;
  }
  return parts;
}

// The error of a failed open of `name` in `dir` with O_NOFOLLOW: ELOOP when
// the name is a symbolic link (O_DIRECTORY makes that ENOTDIR).
int no_follow_error(int dir, const std::string& name) {
  const int err = errno;
  struct stat st;
  if (err == ENOTDIR && ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) return ELOOP;
  return err;
}

}  // namespace

std::string file_kind(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
    default: return "not a regular file";
  }
}

FileResult<RegularFile> open_regular_file(const std::string& path, Links links) {
  struct stat st;
  const int looked = links == Links::kFollow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st);
  if (looked != 0) return failure<RegularFile>(errno);
  if (!S_ISREG(st.st_mode)) return not_regular<RegularFile>(st.st_mode);
  // The path may have been replaced since stat(): O_NONBLOCK keeps a FIFO from
  // blocking this open, and fstat checks what was actually opened.
  return regular_file_of(UniqueFd(::open(path.c_str(), kReadFlags | no_follow_flag(links))));
}

FileResult<RegularFile> open_regular_file_in_root(int root, const std::string& path, Links links) {
  // First the name alone (O_PATH opens nothing: no device is ever opened,
  // not even one that acts when opened), then a regular file for reading.
  UniqueFd where(open_in_root(root, path, O_PATH | O_CLOEXEC | no_follow_flag(links)));
  if (!where.valid() && (errno == ENOSYS || errno == EPERM))  // no openat2 here, or a seccomp filter refusing it
    return open_regular_file_in_root_without_links(root, path);
  if (!where.valid()) return failure<RegularFile>(errno);
  struct stat st;
  if (::fstat(where.get(), &st) != 0) return failure<RegularFile>(errno);
  if (!S_ISREG(st.st_mode)) return not_regular<RegularFile>(st.st_mode);
  return regular_file_of(UniqueFd(open_in_root(root, path, kReadFlags | no_follow_flag(links))));
}

FileResult<RegularFile> open_regular_file_in_root_without_links(int root, const std::string& path) {
  const std::vector<std::string> parts = path_components(path);
  if (parts.empty()) return not_regular<RegularFile>(S_IFDIR);  // the root itself
  UniqueFd dir(::fcntl(root, F_DUPFD_CLOEXEC, 0));
  if (!dir.valid()) return failure<RegularFile>(errno);
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (parts[i] == "..") return failure<RegularFile>(EXDEV);
    UniqueFd next(::openat(dir.get(), parts[i].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) return failure<RegularFile>(no_follow_error(dir.get(), parts[i]));
    dir = std::move(next);
  }
  const std::string& name = parts.back();
  if (name == "..") return failure<RegularFile>(EXDEV);
  struct stat st;
  if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return failure<RegularFile>(errno);
  if (!S_ISREG(st.st_mode)) return not_regular<RegularFile>(st.st_mode);
  return regular_file_of(UniqueFd(::openat(dir.get(), name.c_str(), kReadFlags | O_NOFOLLOW)));
}

FileResult<std::string> read_regular_file(RegularFile& file, uint64_t max_bytes) {
  if (file.size > max_bytes) return too_large(max_bytes);
  // Size 0: a /proc or /sys file whose size is unknown until read; one byte
  // past the maximum tells a file that is too large.
  const uint64_t limit = file.size > 0 ? file.size : max_bytes + 1;
  FileResult<std::string> r;
  std::string text;
  size_t chunk = size_t{1} << 16;
  if (file.size > 0) {  // known: all of it in one read
    text.reserve(file.size);
    chunk = static_cast<size_t>(file.size);
  }
  int err = 0;
  if (!read_up_to(file.fd.get(), limit, chunk, text, err)) return failure<std::string>(err);
  if (text.size() > max_bytes) return too_large(max_bytes);
  r.value = std::move(text);
  return r;
}

FileResult<FileText> read_regular_file_text(const std::string& path, uint64_t max_bytes) {
  auto opened = open_regular_file(path);
  if (!opened) return std::move(opened).failure_as<FileText>();
  RegularFile& file = *opened.value;
  if (file.size > max_bytes) return too_large(max_bytes).failure_as<FileText>();
  // Size 0 (procfs, known only once read): room for the most allowed, of
  // which only the pages filled are ever backed.
  const bool unknown = file.size == 0;
  const uint64_t room = unknown ? max_bytes : file.size;
  auto buffer = std::make_shared<AnonymousBuffer>(
      room <= SIZE_MAX ? AnonymousBuffer::allocate(static_cast<size_t>(room)) : AnonymousBuffer());
  if (buffer->empty()) {
    if (!unknown) return failure<FileText>(ENOMEM);
    auto text = read_regular_file(file, max_bytes);  // no room to reserve: read into a string
    if (!text) return std::move(text).failure_as<FileText>();
    auto owned = std::make_shared<const std::string>(std::move(*text.value));
    return FileResult<FileText>{FileText{owned, *owned}};
  }
  int err = 0;
  const std::optional<size_t> got = read_fully(file.fd.get(), buffer->data(), buffer->size(), err);
  if (!got) return failure<FileText>(err);
  if (unknown && *got == buffer->size()) {  // full: one byte more tells a file that is too large
    char more = 0;
    const std::optional<size_t> extra = read_fully(file.fd.get(), &more, 1, err);
    if (!extra) return failure<FileText>(err);
    if (*extra) return too_large(max_bytes).failure_as<FileText>();
  }
  if (unknown) buffer->keep(*got);
  // A file cut short meanwhile gives what it still has.
  return FileResult<FileText>{FileText{buffer, std::string_view(reinterpret_cast<const char*>(buffer->data()), *got)}};
}

FileResult<std::string> read_regular_file(const std::string& path, uint64_t max_bytes) {
  auto opened = open_regular_file(path);
  if (!opened) return std::move(opened).failure_as<std::string>();
  return read_regular_file(*opened.value, max_bytes);
}

}  // namespace swprof
