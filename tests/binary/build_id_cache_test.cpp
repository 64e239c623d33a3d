#include "binary/build_id_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof;
namespace fs = std::filesystem;

namespace {

// The process's umask for a scope.
class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t mask) : old_(::umask(mask)) {}
  ~ScopedUmask() { ::umask(old_); }

 private:
  mode_t old_;
};

mode_t mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

ino_t inode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_ino;
}

// A small binary with a build-id, copied to `path` with the last byte of
// its build-id set to `salt`: another build-id for each salt.
BuildId binary_variant(const std::string& path, uint8_t salt) {
  const BuildId original = read_build_id(KNOWN_NAMESPACE_BIN).value_or(BuildId{});
  REQUIRE(original.size() >= 2);
  std::string bytes = testing::read_file(KNOWN_NAMESPACE_BIN);
  const std::string needle(original.begin(), original.end());
  const size_t at = bytes.find(needle);
  REQUIRE(at != std::string::npos);
  bytes[at + needle.size() - 1] = static_cast<char>(salt);
  std::ofstream(path, std::ios::binary) << bytes;
  const BuildId id = read_build_id(path).value_or(BuildId{});
  REQUIRE(id.size() == original.size());
  return id;
}

RegularFile opened(const std::string& path) {
  auto file = open_regular_file(path);
  REQUIRE(file);
  return std::move(*file.value);
}

// Writes `bytes` over the file at `path` from `offset`, in place.
void overwrite(const std::string& path, uint64_t offset, const std::string& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset)) == static_cast<ssize_t>(bytes.size()));
  ::close(fd);
}

void set_last_use(const BuildIdCache& cache, const BuildId& id, int64_t seconds_ago) {
  const std::string stamp = fs::path(cache.path_of(CachedFile::kBinary, id)).parent_path() / "used";
  const struct timespec t[2] = {{time(nullptr) - seconds_ago, 0}, {time(nullptr) - seconds_ago, 0}};
  REQUIRE(::utimensat(AT_FDCWD, stamp.c_str(), t, AT_SYMLINK_NOFOLLOW) == 0);
}

bool kept(const BuildIdCache& cache, const BuildId& id) { return static_cast<bool>(cache.open(CachedFile::kBinary, id)); }

}  // namespace

TEST_CASE("build id cache: copies are 0600 in 0700 folders whatever the umask, and found by build-id",
          "[build_id_cache]") {
  for (const mode_t mask : {mode_t{0}, mode_t{0777}, mode_t{022}}) {
    testing::TempDir dir;
    const std::string app = dir.file("app");
    const BuildId id = binary_variant(app, 1);
    BuildIdCache cache(dir.file("home/.cache/swprof"), BuildIdCache::kDefaultMaxBytes, CacheLinking::kCopy);
    {
      ScopedUmask umask(mask);
      const CacheAddResult r = cache.add(CachedFile::kBinary, id, opened(app), app);
      INFO(r.problem);
      REQUIRE(r.outcome == CacheAddResult::Outcome::kCopied);
      CHECK(r.bytes == fs::file_size(app));
    }
    INFO("umask " << mask);
    const std::string file = cache.path_of(CachedFile::kBinary, id);
    const fs::path entry = fs::path(file).parent_path();
    CHECK(mode_of(dir.file("home/.cache")) == 0700);
    CHECK(mode_of(cache.root()) == 0700);
    CHECK(mode_of(entry.parent_path()) == 0700);
    CHECK(mode_of(entry) == 0700);
    CHECK(mode_of(file) == 0600);
    CHECK(mode_of(entry / "used") == 0600);
    CHECK(mode_of(entry / "path") == 0600);
    CHECK(testing::read_file(entry / "path") == app + "\n");
    CHECK(fs::exists(cache.root() + "/CACHEDIR.TAG"));
    CHECK(entry.filename().string().size() + 2 == id.size() * 2);  // ab/cdef...

    auto found = cache.open(CachedFile::kBinary, id);
    REQUIRE(found);
    CHECK(testing::read_file(file) == testing::read_file(app));
    CHECK(cache.add(CachedFile::kBinary, id, opened(app), app).outcome == CacheAddResult::Outcome::kPresent);
    CHECK(cache.open(CachedFile::kDebuginfo, id).missing());
    CHECK(cache.open(CachedFile::kBinary, BuildId{1, 2, 3, 4}).missing());
  }
}

TEST_CASE("build id cache: a file on the cache's file system is kept as a hard link, the file itself",
          "[build_id_cache]") {
  testing::TempDir dir;
  const std::string app = dir.file("app");
  const BuildId id = binary_variant(app, 2);
  BuildIdCache cache(dir.file("swprof"));
  const CacheAddResult r = cache.add(CachedFile::kBinary, id, opened(app), app);
  INFO(r.problem);
  REQUIRE(r.outcome == CacheAddResult::Outcome::kLinked);
  CHECK(inode_of(cache.path_of(CachedFile::kBinary, id)) == inode_of(app));
  // While the file is in place, the link costs the cache nothing; once the
  // file is gone (a rebuild writes a new one), it is the cache's alone.
  auto entries = cache.list();
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].bytes == fs::file_size(app));
  CHECK(entries[0].own_bytes < 4096);  // the path and the stamp
  CHECK(entries[0].path == app);
  fs::remove(app);
  CHECK(cache.list()[0].own_bytes >= entries[0].bytes);
  CHECK(kept(cache, id));
}

TEST_CASE("build id cache: a file whose build-id is not the recorded one, or larger than the bound, is not kept",
          "[build_id_cache]") {
  testing::TempDir dir;
  const std::string app = dir.file("app");
  const BuildId id = binary_variant(app, 3);
  BuildIdCache cache(dir.file("swprof"), 1000);
  const BuildId other = {0xaa, 0xbb, 0xcc, 0xdd};
  CacheAddResult r = cache.add(CachedFile::kBinary, other, opened(app), app);
  CHECK(r.outcome == CacheAddResult::Outcome::kRefused);
  CHECK(r.problem.find("its build-id is " + to_hex(id) + ", not the recorded aabbccdd") != std::string::npos);
  r = cache.add(CachedFile::kBinary, id, opened(app), app);
  CHECK(r.outcome == CacheAddResult::Outcome::kRefused);
  CHECK(r.problem.find("more than the cache's bound") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.file("swprof")));
}

TEST_CASE("build id cache: a damaged entry is a miss with a reason: flipped bytes, cut short, another build-id, a "
          "link, a folder, another owner",
          "[build_id_cache]") {
  testing::TempDir dir;
  const std::string app = dir.file("app");
  const BuildId id = binary_variant(app, 4);
  const std::string bytes = testing::read_file(app);
  const size_t note = bytes.find(std::string(id.begin(), id.end()));
  BuildIdCache cache(dir.file("swprof"), BuildIdCache::kDefaultMaxBytes, CacheLinking::kCopy);
  REQUIRE(cache.add(CachedFile::kBinary, id, opened(app), app).outcome == CacheAddResult::Outcome::kCopied);
  const std::string file = cache.path_of(CachedFile::kBinary, id);
  const auto reason = [&] {
    auto found = cache.open(CachedFile::kBinary, id);
    CHECK_FALSE(found);
    CHECK_FALSE(found.missing());
    return found.reason;
  };
  const auto restore = [&] {
    fs::remove_all(file);
    std::ofstream(file, std::ios::binary) << bytes;
    REQUIRE(cache.open(CachedFile::kBinary, id));
  };

  // Every byte of the build-id, flipped in turn.
  for (size_t i = 0; i < id.size(); ++i) {
    std::string flipped(1, static_cast<char>(~bytes[note + i]));
    overwrite(file, note + i, flipped);
    CHECK(reason().find("its build-id is ") == 0);
    restore();
  }
  // Every byte of the ELF header flipped: not the binary, or still of its build-id.
  for (size_t i = 0; i < 64; ++i) {
    overwrite(file, i, std::string(1, static_cast<char>(~bytes[i])));
    auto found = cache.open(CachedFile::kBinary, id);
    if (found) CHECK(read_build_id_of_fd(found.value->fd.get()) == id);
    else CHECK(found.reason == "it is not an ELF file with a build-id");
    restore();
  }
  fs::resize_file(file, note / 2);
  CHECK(reason() == "it is not an ELF file with a build-id");
  restore();

  fs::remove(file);
  fs::create_symlink(app, file);  // the right file, but through a link
  CHECK(reason().find("symbolic link") != std::string::npos);
  restore();

  fs::remove(file);
  fs::create_directory(file);
  CHECK(reason().find("directory") != std::string::npos);
  restore();

  if (geteuid() == 0) {
    REQUIRE(::chown(file.c_str(), 65534, 65534) == 0);
    CHECK(reason().find("is owned by uid 65534") == 0);
    restore();
  }

  // An entry folder replaced by a link to a good entry elsewhere.
  const fs::path entry = fs::path(file).parent_path();
  fs::rename(entry, dir.file("elsewhere"));
  fs::create_directory_symlink(dir.file("elsewhere"), entry);
  CHECK_FALSE(cache.open(CachedFile::kBinary, id));
}

TEST_CASE("build id cache: a cache folder of another user, or a link in its place, is neither read nor written",
          "[build_id_cache]") {
  testing::TempDir dir;
  const std::string app = dir.file("app");
  const BuildId id = binary_variant(app, 5);
  fs::create_directory(dir.file("real"));
  fs::create_directory_symlink(dir.file("real"), dir.file("swprof"));
  BuildIdCache linked(dir.file("swprof"));
  CacheAddResult r = linked.add(CachedFile::kBinary, id, opened(app), app);
  CHECK(r.outcome == CacheAddResult::Outcome::kRefused);
  CHECK(r.problem.find("swprof is a symbolic link, not a folder") != std::string::npos);
  CHECK(fs::is_empty(dir.file("real")));
  CHECK_THROWS_WITH(linked.list(), Catch::Contains("is a symbolic link"));

  if (geteuid() != 0) return;
  BuildIdCache cache(dir.file("theirs"));
  REQUIRE(cache.add(CachedFile::kBinary, id, opened(app), app).outcome == CacheAddResult::Outcome::kLinked);
  REQUIRE(::chown(cache.root().c_str(), 65534, 65534) == 0);
  CHECK_FALSE(cache.open(CachedFile::kBinary, id));
  const BuildId other = binary_variant(dir.file("b"), 6);
  r = cache.add(CachedFile::kBinary, other, opened(dir.file("b")), dir.file("b"));
  CHECK(r.problem.find("is owned by uid 65534, not by this user") != std::string::npos);
}

TEST_CASE("build id cache: prune removes the least recently used entries until the cache is within its bound",
          "[build_id_cache]") {
  testing::TempDir dir;
  BuildIdCache cache(dir.file("swprof"), BuildIdCache::kDefaultMaxBytes, CacheLinking::kCopy);
  std::vector<BuildId> ids;
  for (uint8_t salt : {10, 11, 12, 13}) {
    const std::string path = dir.file("app" + std::to_string(salt));
    ids.push_back(binary_variant(path, salt));
    REQUIRE(cache.add(CachedFile::kBinary, ids.back(), opened(path), path).outcome ==
            CacheAddResult::Outcome::kCopied);
  }
  // Used: ids[2] longest ago, then ids[0], ids[3], ids[1].
  set_last_use(cache, ids[2], 400);
  set_last_use(cache, ids[0], 300);
  set_last_use(cache, ids[3], 200);
  set_last_use(cache, ids[1], 100);
  auto entries = cache.list();
  REQUIRE(entries.size() == 4);
  uint64_t each = entries[0].own_bytes;
  for (const CacheEntry& e : entries) CHECK(e.own_bytes == each);

  CachePruneResult r = cache.prune(4 * each);
  CHECK(r.removed == 0);
  CHECK(r.kept_bytes == 4 * each);
  r = cache.prune(3 * each);
  CHECK(r.removed == 1);
  CHECK(r.freed_bytes == each);
  CHECK_FALSE(kept(cache, ids[2]));
  CHECK(kept(cache, ids[0]));
  // A use moves an entry to the end of the line.
  BuildIdCache reader(cache.root());
  reader.note_use(ids[0]);
  r = cache.prune(each + each / 2);
  CHECK(r.removed == 2);
  CHECK(r.kept == 1);
  CHECK(kept(cache, ids[0]));
  CHECK_FALSE(kept(cache, ids[1]));
  CHECK_FALSE(kept(cache, ids[3]));
  // The folders of removed entries are gone with them.
  size_t folders = 0;
  for (const auto& e : fs::recursive_directory_iterator(cache.root())) folders += e.is_directory();
  CHECK(folders == 2);

  r = cache.clear();
  CHECK(r.removed == 1);
  CHECK(cache.list().empty());
}

TEST_CASE("build id cache: prune removes temporary files a killed writer left an hour ago, not a live writer's",
          "[build_id_cache]") {
  testing::TempDir dir;
  const std::string app = dir.file("app");
  const BuildId id = binary_variant(app, 20);
  BuildIdCache cache(dir.file("swprof"));
  REQUIRE(cache.add(CachedFile::kBinary, id, opened(app), app).outcome == CacheAddResult::Outcome::kLinked);
  const fs::path entry = fs::path(cache.path_of(CachedFile::kBinary, id)).parent_path();
  std::ofstream(entry / ".tmp.1.0") << "old";
  std::ofstream(entry / ".tmp.2.0") << "new";
  const struct timespec old[2] = {{time(nullptr) - 7200, 0}, {time(nullptr) - 7200, 0}};
  REQUIRE(::utimensat(AT_FDCWD, (entry / ".tmp.1.0").c_str(), old, 0) == 0);
  cache.prune();
  CHECK_FALSE(fs::exists(entry / ".tmp.1.0"));
  CHECK(fs::exists(entry / ".tmp.2.0"));
  CHECK(kept(cache, id));
}

TEST_CASE("build id cache: two processes writing one entry over and over never show a reader a torn file, nor "
          "leave a temporary one",
          "[build_id_cache]") {
  // Copies, and hard links: a rename of one link over another of the same
  // file does nothing (rename(2)), and leaves the temporary name.
  for (const CacheLinking linking : {CacheLinking::kCopy, CacheLinking::kLinkWhenPossible}) {
    INFO((linking == CacheLinking::kCopy ? "copies" : "hard links"));
    testing::TempDir dir;
    const std::string app = dir.file("app");
    const BuildId id = binary_variant(app, 30);
    const std::string bytes = testing::read_file(app);
    BuildIdCache cache(dir.file("swprof"), BuildIdCache::kDefaultMaxBytes, linking);
    REQUIRE(cache.prepare().empty());
    std::vector<pid_t> writers;
    for (int w = 0; w < 2; ++w) {
      const pid_t pid = fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
        // Each write goes to a temporary file and is renamed over the other's.
        BuildIdCache mine(cache.root(), BuildIdCache::kDefaultMaxBytes, linking);
        int failures = 0;
        for (int i = 0; i < 150; ++i) {
          ::unlink(mine.path_of(CachedFile::kBinary, id).c_str());
          auto file = open_regular_file(app);
          if (!file || mine.add(CachedFile::kBinary, id, *file.value, app).outcome == CacheAddResult::Outcome::kRefused)
            ++failures;
        }
        _exit(failures == 0 ? 0 : 1);
      }
      writers.push_back(pid);
    }
    size_t whole = 0, torn = 0;
    std::vector<int> statuses(writers.size(), -1);
    for (bool running = true; running;) {
      running = false;
      for (size_t w = 0; w < writers.size(); ++w)
        if (statuses[w] == -1 && ::waitpid(writers[w], &statuses[w], WNOHANG) == 0) {
          statuses[w] = -1;
          running = true;
        }
      auto found = cache.open(CachedFile::kBinary, id);
      if (!found) continue;
      std::string read(bytes.size() + 1, '\0');
      const ssize_t n = ::pread(found.value->fd.get(), read.data(), read.size(), 0);
      read.resize(n > 0 ? static_cast<size_t>(n) : 0);
      ++(read == bytes ? whole : torn);
    }
    for (const int status : statuses) CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    CHECK(torn == 0);
    CHECK(whole > 0);
    const fs::path entry = fs::path(cache.path_of(CachedFile::kBinary, id)).parent_path();
    for (const auto& e : fs::directory_iterator(entry)) CHECK(e.path().filename().string().rfind(".tmp.", 0) != 0);
  }
}
