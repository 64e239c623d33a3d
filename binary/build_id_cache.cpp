#include "binary/build_id_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <tuple>

#include "common/error.h"
#include "common/format.h"
#include "common/temp_file_cleanup.h"

namespace swprof {
namespace {

// What a build-id may be to name an entry: two bytes split off as the
// first folder, at most what `ld --build-id=0xHEX` takes in practice.
constexpr size_t kMinBuildIdBytes = 2;
constexpr size_t kMaxBuildIdBytes = 64;
constexpr char kTemporaryPrefix[] = ".tmp.";
constexpr char kPathFile[] = "path";
constexpr char kStampFile[] = "used";
// A temporary file this old was left by a writer that was killed.
constexpr int64_t kStaleTemporarySeconds = 3600;
constexpr size_t kCopyChunkBytes = size_t{1} << 20;

constexpr char kCacheDirTag[] =
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by swprof (its build-id cache).\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n";

const char* file_name(CachedFile kind) { return kind == CachedFile::kBinary ? "binary" : "debuginfo"; }

bool valid_build_id(const BuildId& id) { return id.size() >= kMinBuildIdBytes && id.size() <= kMaxBuildIdBytes; }

// "ab/cdef..." for the build-id ab cd ef ...
std::string entry_name(const BuildId& id) {
  const std::string hex = to_hex(id);
  return hex.substr(0, 2) + "/" + hex.substr(2);
}

bool is_hex(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

BuildId from_hex(const std::string& hex) {
  BuildId out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

std::string owner_problem(uid_t uid) {
  return "is owned by uid " + std::to_string(uid) + ", not by this user (uid " + std::to_string(geteuid()) + ")";
}

// Makes each missing folder of the absolute path `dir`, 0700 whatever the umask.
void make_parents(const std::string& dir) {
  for (size_t at = dir.find('/', 1);; at = dir.find('/', at + 1)) {
    const std::string prefix = dir.substr(0, at);
    if (::mkdir(prefix.c_str(), 0700) == 0) ::chmod(prefix.c_str(), 0700);
    if (at == std::string::npos) return;
  }
}

enum class Access { kRead, kWrite };

// The folder `name` of `parent`, never through a link, owned by this user:
// for kWrite made when missing, and given mode 0700. Invalid otherwise, with
// `problem` empty when it is only missing.
UniqueFd open_folder(int parent, const std::string& name, Access access, std::string& problem) {
  if (access == Access::kWrite && ::mkdirat(parent, name.c_str(), 0700) != 0 && errno != EEXIST) {
    problem = "cannot make " + name + ": " + errno_text(errno);
    return UniqueFd();
  }
  UniqueFd fd(::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    struct stat st;
    if (errno == ENOENT) return fd;
    problem = name + (::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode)
                          ? " is " + file_kind(st.st_mode) + ", not a folder"
                          : ": " + errno_text(errno));
    return UniqueFd();
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) {
    problem = name + ": " + errno_text(errno);
    return UniqueFd();
  }
  if (st.st_uid != geteuid()) {
    problem = name + " " + owner_problem(st.st_uid);
    return UniqueFd();
  }
  if (access == Access::kWrite && (st.st_mode & 07777) != 0700 && ::fchmod(fd.get(), 0700) != 0) {
    problem = "cannot make " + name + " private: " + errno_text(errno);
    return UniqueFd();
  }
  return fd;
}

// The names in the folder `dir` but "." and "..".
std::vector<std::string> names_in(int dir) {
  std::vector<std::string> names;
  const int copy = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (copy < 0) return names;
  const std::unique_ptr<DIR, int (*)(DIR*)> d(::fdopendir(copy), &::closedir);
  if (!d) {
    ::close(copy);
    return names;
  }
  while (const dirent* e = ::readdir(d.get())) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  return names;
}

// Creates `name` in `dir` (0600 whatever the umask, never through a link,
// never an existing file): invalid with errno set when it cannot.
UniqueFd create_private(int dir, const std::string& name) {
  UniqueFd fd(::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600));
  if (fd.valid() && ::fchmod(fd.get(), 0600) != 0) {
    const int err = errno;
    ::unlinkat(dir, name.c_str(), 0);
    errno = err;
    return UniqueFd();
  }
  return fd;
}

bool write_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// Copies the first `size` bytes of `from` into `to` (in the kernel where it
// can, else through a buffer); false with errno set when they cannot all be.
bool copy_bytes(int from, int to, uint64_t size) {
  off_t in = 0;
  bool kernel = true;
  std::vector<char> buffer;
  while (static_cast<uint64_t>(in) < size) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(kCopyChunkBytes, size - static_cast<uint64_t>(in)));
    if (kernel) {
      const ssize_t n = ::copy_file_range(from, &in, to, nullptr, want, 0);
      if (n > 0) continue;
      if (n == 0) return errno = EIO, false;  // the file is shorter than it was
      if (errno == EINTR) continue;
      if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP) return false;
      kernel = false;
      buffer.resize(kCopyChunkBytes);
    }
    const ssize_t n = ::pread(from, buffer.data(), want, in);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n == 0 ? (errno = EIO, false) : false;
    if (!write_all(to, buffer.data(), static_cast<size_t>(n))) return false;
    in += n;
  }
  return true;
}

// Sets the stamp of the entry folder `entry` to now.
void stamp(int entry) {
  UniqueFd fd(::openat(entry, kStampFile, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600));
  struct stat st;
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  if ((st.st_mode & 07777) != 0600) ::fchmod(fd.get(), 0600);
  ::futimens(fd.get(), nullptr);
}

// CACHEDIR.TAG in the root, when it has none.
void write_tag(int root) {
  struct stat st;
  if (::fstatat(root, "CACHEDIR.TAG", &st, AT_SYMLINK_NOFOLLOW) == 0) return;
  UniqueFd fd = create_private(root, "CACHEDIR.TAG");
  if (fd.valid()) write_all(fd.get(), kCacheDirTag, sizeof kCacheDirTag - 1);
}

// What list() reads of one entry folder.
CacheEntry read_entry(int entry, const BuildId& id, bool with_path) {
  CacheEntry e;
  e.build_id = id;
  struct stat st;
  const auto ns = [](const struct timespec& t) { return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; };
  if (::fstat(entry, &st) == 0) e.last_use_ns = ns(st.st_mtim);
  for (const std::string& name : names_in(entry)) {
    if (::fstatat(entry, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    const auto bytes = static_cast<uint64_t>(st.st_size);
    if (st.st_nlink == 1) e.own_bytes += bytes;
    if (name == file_name(CachedFile::kBinary)) e.has_binary = true;
    else if (name == file_name(CachedFile::kDebuginfo)) e.has_debuginfo = true;
    else if (name == kStampFile) e.last_use_ns = ns(st.st_mtim);
    if (name == file_name(CachedFile::kBinary) || name == file_name(CachedFile::kDebuginfo)) e.bytes += bytes;
  }
  if (with_path)
    if (auto file = open_regular_file_in_root_without_links(entry, kPathFile))
      if (auto text = read_regular_file(*file.value, BuildIdCache::kMaxPathFileBytes)) {
        e.path = text.value->substr(0, text.value->find('\n'));
      }
  return e;
}

// Removes the temporary files of entry folder `entry` older than
// kStaleTemporarySeconds.
void remove_stale_temporaries(int entry) {
  const int64_t now = std::time(nullptr);
  struct stat st;
  for (const std::string& name : names_in(entry))
    if (name.starts_with(kTemporaryPrefix) && ::fstatat(entry, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        now - st.st_mtim.tv_sec > kStaleTemporarySeconds)
      ::unlinkat(entry, name.c_str(), 0);
}

// Every entry folder under `root`: its first folder's name and its own.
template <class Visit>
void for_each_entry(int root, Visit visit) {
  for (const std::string& first : names_in(root)) {
    if (first.size() != 2 || !is_hex(first)) continue;
    std::string problem;
    UniqueFd dir = open_folder(root, first, Access::kRead, problem);
    if (!dir.valid()) continue;
    for (const std::string& rest : names_in(dir.get())) {
      if (!is_hex(rest) || rest.size() % 2 != 0 || (rest.size() + 2) / 2 > kMaxBuildIdBytes) continue;
      UniqueFd entry = open_folder(dir.get(), rest, Access::kRead, problem);
      if (entry.valid()) visit(dir.get(), entry.get(), first, rest);
    }
  }
}

// Removes the entry folder `rest` of the folder `dir`: every file in it,
// then the folder. Empty, or why not.
std::string remove_entry(int dir, int entry, const std::string& rest) {
  for (const std::string& name : names_in(entry))
    if (::unlinkat(entry, name.c_str(), 0) != 0 && errno != ENOENT) return name + ": " + errno_text(errno);
  if (::unlinkat(dir, rest.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) return errno_text(errno);
  return "";
}

}  // namespace

BuildIdCache::BuildIdCache(std::string root, uint64_t max_bytes, CacheLinking linking)
    : root_(std::move(root)), max_bytes_(max_bytes), linking_(linking) {}

std::string BuildIdCache::default_root() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/') return std::string(xdg) + "/swprof";
  if (const char* home = std::getenv("HOME"); home && home[0] == '/') return std::string(home) + "/.cache/swprof";
  return "";
}

std::string BuildIdCache::path_of(CachedFile kind, const BuildId& build_id) const {
  return root_ + "/" + entry_name(build_id) + "/" + file_name(kind);
}

UniqueFd BuildIdCache::open_root(bool create, std::string& problem) const {
  const size_t slash = root_.rfind('/');
  if (root_.empty() || root_[0] != '/' || slash + 1 >= root_.size()) {
    problem = "'" + root_ + "' is not an absolute path to a folder";
    return UniqueFd();
  }
  const std::string parent = slash == 0 ? "/" : root_.substr(0, slash);
  if (create) make_parents(parent);
  UniqueFd up(::open(parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!up.valid()) {
    if (errno != ENOENT || create) problem = parent + ": " + errno_text(errno);
    return UniqueFd();
  }
  UniqueFd fd = open_folder(up.get(), root_.substr(slash + 1), create ? Access::kWrite : Access::kRead, problem);
  if (!problem.empty()) problem = parent + "/" + problem;
  return fd;
}

UniqueFd BuildIdCache::open_entry(int root, const BuildId& build_id, bool create, std::string& problem) const {
  const std::string name = entry_name(build_id);
  const size_t slash = name.find('/');
  const Access access = create ? Access::kWrite : Access::kRead;
  UniqueFd first = open_folder(root, name.substr(0, slash), access, problem);
  return first.valid() ? open_folder(first.get(), name.substr(slash + 1), access, problem) : UniqueFd();
}

std::string BuildIdCache::prepare() const {
  std::string problem;
  UniqueFd root = open_root(true, problem);
  if (!root.valid()) return "cannot use the build-id cache " + root_ + ": " + problem;
  write_tag(root.get());
  return "";
}

FileResult<RegularFile> BuildIdCache::open(CachedFile kind, const BuildId& build_id) const {
  FileResult<RegularFile> miss;
  miss.error = ENOENT;
  miss.reason = "not in the build-id cache";
  if (!valid_build_id(build_id)) return miss;
  // A root that cannot be used is no entry: add() says why, once.
  std::string problem;
  UniqueFd root = open_root(false, problem);
  if (!root.valid()) return miss;
  FileResult<RegularFile> file =
      open_regular_file_in_root_without_links(root.get(), entry_name(build_id) + "/" + file_name(kind));
  if (!file) return file.missing() ? std::move(miss) : std::move(file);
  FileResult<RegularFile> refused;
  const uid_t owner = file.value->owner;
  if (owner != geteuid() && owner != 0) {
    refused.reason = owner_problem(owner);
    return refused;
  }
  const std::optional<BuildId> found = read_build_id_of_fd(file.value->fd.get());
  if (found != build_id) {
    refused.reason = found ? "its build-id is " + to_hex(*found) + ", not " + to_hex(build_id)
                           : "it is not an ELF file with a build-id";
    return refused;
  }
  return file;
}

void BuildIdCache::note_use(const BuildId& build_id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stamped_.insert(build_id).second) return;
  }
  std::string problem;
  UniqueFd root = open_root(false, problem);
  UniqueFd entry = root.valid() && valid_build_id(build_id) ? open_entry(root.get(), build_id, false, problem) : UniqueFd();
  if (entry.valid()) stamp(entry.get());
}

CacheAddResult BuildIdCache::add(CachedFile kind, const BuildId& build_id, const RegularFile& file,
                                 const std::string& path) {
  CacheAddResult result;
  result.bytes = file.size;
  const auto refuse = [&](const std::string& why) {
    result.problem = "not kept in the build-id cache, " + path + ": " + why;
    return result;
  };
  if (!valid_build_id(build_id))
    return refuse("its build-id is " + std::to_string(build_id.size()) + " bytes, not 2 to 64");
  if (const std::optional<BuildId> found = read_build_id_of_fd(file.fd.get()); found != build_id)
    return refuse(found ? "its build-id is " + to_hex(*found) + ", not the recorded " + to_hex(build_id)
                        : "it has no build-id");
  if (file.size > max_bytes_)
    return refuse("it is " + human_bytes(file.size) + ", more than the cache's bound of " + human_bytes(max_bytes_));
  std::string problem;
  UniqueFd root = open_root(true, problem);
  if (!root.valid()) return refuse("cannot use " + root_ + ": " + problem);
  write_tag(root.get());
  UniqueFd entry = open_entry(root.get(), build_id, true, problem);
  if (!entry.valid()) return refuse("cannot use " + root_ + ": " + problem);
  if (open(kind, build_id)) {
    result.outcome = CacheAddResult::Outcome::kPresent;
  } else {
    result = write(entry.get(), kind, build_id, file);
    if (result.outcome == CacheAddResult::Outcome::kRefused) return refuse(result.problem);
    if (kind == CachedFile::kBinary) write_path(entry.get(), path);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (stamped_.insert(build_id).second || result.outcome != CacheAddResult::Outcome::kPresent) stamp(entry.get());
  return result;
}

// A hard link to the very file opened (through /proc/self/fd, which links
// the open file and not what its path names now) when it is this user's or
// root's and the kernel permits it (protected_hardlinks; the same file
// system), else a copy; checked under its temporary name, then renamed.
CacheAddResult BuildIdCache::write(int entry, CachedFile kind, const BuildId& build_id, const RegularFile& file) {
  static std::atomic<uint64_t> serial{0};
  const std::string temp = kTemporaryPrefix + std::to_string(getpid()) + "." + std::to_string(serial++);
  TempFileCleanup cleanup(root_ + "/" + entry_name(build_id) + "/" + temp);
  CacheAddResult r;
  r.bytes = file.size;
  const auto fail = [&](const std::string& why) {
    ::unlinkat(entry, temp.c_str(), 0);
    r.outcome = CacheAddResult::Outcome::kRefused;
    r.problem = why;
    return r;
  };
  const std::string proc = "/proc/self/fd/" + std::to_string(file.fd.get());
  const bool may_link = linking_ == CacheLinking::kLinkWhenPossible && (file.owner == geteuid() || file.owner == 0);
  if (may_link && ::linkat(AT_FDCWD, proc.c_str(), entry, temp.c_str(), AT_SYMLINK_FOLLOW) == 0) {
    r.outcome = CacheAddResult::Outcome::kLinked;
  } else {
    UniqueFd out = create_private(entry, temp);
    if (!out.valid()) return fail("cannot write a file there: " + errno_text(errno));
    if (!copy_bytes(file.fd.get(), out.get(), file.size)) return fail("cannot copy it: " + errno_text(errno));
    r.outcome = CacheAddResult::Outcome::kCopied;
  }
  // What the temporary name holds now must be the file as it was checked.
  UniqueFd kept(::openat(entry, temp.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st;
  if (!kept.valid() || ::fstat(kept.get(), &st) != 0 || static_cast<uint64_t>(st.st_size) != file.size ||
      read_build_id_of_fd(kept.get()) != build_id)
    return fail("it changed while it was kept");
  if (::renameat(entry, temp.c_str(), entry, file_name(kind)) != 0)
    return fail("cannot rename it into place: " + errno_text(errno));
  // A rename between two names of one file does nothing (rename(2)): a
  // writer racing this one may have put a link to the same file in place.
  ::unlinkat(entry, temp.c_str(), 0);
  cleanup.release();
  return r;
}

void BuildIdCache::write_path(int entry, const std::string& path) {
  const std::string temp = kTemporaryPrefix + std::to_string(getpid()) + ".path";
  UniqueFd out = create_private(entry, temp);
  if (!out.valid()) return;
  const std::string line = path.substr(0, kMaxPathFileBytes - 1) + "\n";
  if (!write_all(out.get(), line.data(), line.size()) || ::renameat(entry, temp.c_str(), entry, kPathFile) != 0)
    ::unlinkat(entry, temp.c_str(), 0);
}

std::vector<CacheEntry> BuildIdCache::list() const {
  std::string problem;
  UniqueFd root = open_root(false, problem);
  if (!root.valid()) {
    if (!problem.empty()) throw Error("cannot read the build-id cache " + root_ + ": " + problem);
    return {};
  }
  std::vector<CacheEntry> entries;
  for_each_entry(root.get(), [&](int, int entry, const std::string& first, const std::string& rest) {
    entries.push_back(read_entry(entry, from_hex(first + rest), true));
  });
  return entries;
}

CachePruneResult BuildIdCache::remove_entries(uint64_t max_bytes, bool all) const {
  std::string problem;
  UniqueFd root = open_root(false, problem);
  CachePruneResult result;
  if (!root.valid()) {
    if (!problem.empty()) throw Error("cannot read the build-id cache " + root_ + ": " + problem);
    return result;
  }
  std::vector<CacheEntry> entries;
  for_each_entry(root.get(), [&](int, int entry, const std::string& first, const std::string& rest) {
    remove_stale_temporaries(entry);
    entries.push_back(read_entry(entry, from_hex(first + rest), false));
  });
  std::sort(entries.begin(), entries.end(), [](const CacheEntry& a, const CacheEntry& b) {
    return std::tie(a.last_use_ns, a.build_id) < std::tie(b.last_use_ns, b.build_id);
  });
  uint64_t total = 0;
  for (const CacheEntry& e : entries) total += e.own_bytes;
  for (const CacheEntry& e : entries) {
    if (!all && total <= max_bytes) {
      ++result.kept;
      result.kept_bytes += e.own_bytes;
      continue;
    }
    const std::string name = entry_name(e.build_id);
    const size_t slash = name.find('/');
    UniqueFd dir = open_folder(root.get(), name.substr(0, slash), Access::kRead, problem);
    UniqueFd entry = dir.valid() ? open_folder(dir.get(), name.substr(slash + 1), Access::kRead, problem) : UniqueFd();
    const std::string why =
        entry.valid() ? remove_entry(dir.get(), entry.get(), name.substr(slash + 1)) : "cannot open it";
    if (why.empty()) {
      ++result.removed;
      result.freed_bytes += e.own_bytes;
      total -= e.own_bytes;
      ::unlinkat(root.get(), name.substr(0, slash).c_str(), AT_REMOVEDIR);  // when it was the last of its folder
    } else {
      result.problems.push_back(root_ + "/" + name + ": " + why);
      ++result.kept;
      result.kept_bytes += e.own_bytes;
    }
  }
  return result;
}

}  // namespace swprof
