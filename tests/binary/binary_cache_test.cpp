#include "binary/binary_cache.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "recording/build_id.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof;

TEST_CASE("binary cache: an embedded copy of a file comes before the file system", "[binary_cache]") {
  testing::TempDir dir;
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string bytes = testing::read_file(exe);
  const BuildId id = read_build_id(exe).value_or(BuildId{});
  REQUIRE_FALSE(id.empty());
  const std::string gone = dir.file("container/app");  // the namespace that had it is gone

  BinaryCache cache;
  cache.add_image(embedded_file_image_name(gone), std::vector<uint8_t>(bytes.begin(), bytes.end()));
  auto found = cache.get(gone, id);
  REQUIRE(found.binary);
  CHECK(found.binary->build_id() == id);
  CHECK_FALSE(found.build_id_mismatch);
  CHECK(cache.get(gone, {}).binary == found.binary);  // no build-id recorded: the copy still names it
  CHECK(cache.warnings().empty());

  // Another binary mapped at that path (another container): not this copy.
  auto other = cache.get(gone, BuildId{1, 2, 3});
  CHECK_FALSE(other.binary);
  REQUIRE(cache.warnings().size() == 1);
  CHECK(cache.warnings()[0].find(gone + " is missing (No such file or directory)") == 0);
}

TEST_CASE("binary cache: the archive supplies a binary missing or changed on disk, by the recorded build-id",
          "[binary_cache]") {
  testing::TempDir dir;
  const std::string exe = KNOWN_NAMESPACE_BIN;  // small, with a build-id
  const std::string bytes = testing::read_file(exe);
  const BuildId id = read_build_id(exe).value_or(BuildId{});
  REQUIRE_FALSE(id.empty());
  {
    ArchiveWriter w(dir.file("r.archive"));
    w.add(ArchiveKind::kBinary, id, "/opt/app", Bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    w.finish();
  }
  const std::string rebuilt = dir.file("rebuilt");  // on disk, but another build
  std::filesystem::copy_file("/proc/self/exe", rebuilt);

  BinaryCache without;
  CHECK_FALSE(without.get(dir.file("deleted"), id).binary);
  CHECK(without.get(rebuilt, id).build_id_mismatch);
  REQUIRE(without.warnings().size() == 2);
  // Each says what is wrong and what gives the recorded binary back.
  CHECK(without.warnings()[0] == dir.file("deleted") +
                                     " is missing (No such file or directory): its frames are unwound without its unwind "
                                     "info and named by address; 'swprof archive RECORDING' where it was recorded, before "
                                     "its binaries change, keeps them for reports elsewhere");
  CHECK(without.warnings()[1].find(rebuilt + " changed since it was recorded (build-id ") == 0);
  CHECK_THAT(without.warnings()[1], Catch::EndsWith(" on disk): its frames are unwound without its unwind info and "
                                                    "named by address; 'swprof archive RECORDING' where it was "
                                                    "recorded, before its binaries change, keeps them for reports "
                                                    "elsewhere"));

  BinaryCache cache;
  cache.use_archive(BinaryArchive::open(dir.file("r.archive")));
  auto deleted = cache.get(dir.file("deleted"), id);
  REQUIRE(deleted.binary);
  CHECK(deleted.binary->build_id() == id);
  CHECK(deleted.binary->path() == archived_image_name(dir.file("deleted")));
  auto changed = cache.get(rebuilt, id);
  REQUIRE(changed.binary);
  CHECK_FALSE(changed.build_id_mismatch);
  CHECK(changed.binary == deleted.binary);  // one copy per build-id
  CHECK(cache.archive_supplied() == 1);
  CHECK(cache.warnings().empty());
  // A build-id the archive does not hold: as without one.
  CHECK_FALSE(cache.get(dir.file("deleted"), BuildId{1, 2, 3}).binary);
  REQUIRE(cache.warnings().size() == 1);
  CHECK_THAT(cache.warnings()[0], Catch::EndsWith("named by address; the archive has no copy of it either"));
  // The file on disk when it is the recorded build: not the archive's.
  const BuildId own = read_build_id(rebuilt).value_or(BuildId{});
  CHECK(cache.get(rebuilt, own).binary->path() == rebuilt);
}

TEST_CASE("binary cache: the build-id cache supplies a binary missing or changed on disk, before the archive, and a "
          "damaged copy there is one warning",
          "[binary_cache]") {
  testing::TempDir dir;
  const std::string exe = KNOWN_NAMESPACE_BIN;
  const std::string app = dir.file("app");
  std::filesystem::copy_file(exe, app);
  const BuildId id = read_build_id(app).value_or(BuildId{});
  REQUIRE_FALSE(id.empty());
  auto kept = std::make_shared<BuildIdCache>(dir.file("swprof"), BuildIdCache::kDefaultMaxBytes, CacheLinking::kCopy);
  {
    auto file = open_regular_file(app);
    REQUIRE(kept->add(CachedFile::kBinary, id, *file.value, app).outcome == CacheAddResult::Outcome::kCopied);
  }
  {
    const std::string bytes = testing::read_file(exe);
    ArchiveWriter w(dir.file("r.archive"));
    w.add(ArchiveKind::kBinary, id, app, Bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    w.finish();
  }
  // As recorded on disk: the file itself, the one the build-id cache is to keep.
  {
    BinaryCache cache;
    cache.use_build_id_cache(kept);
    auto found = cache.get(app, id);
    REQUIRE(found.binary);
    CHECK(found.binary->path() == app);
    REQUIRE(cache.opened_as_recorded().size() == 1);
    CHECK(cache.opened_as_recorded()[0] == found.binary);
    CHECK(cache.build_id_cache_supplied() == 0);
  }
  std::filesystem::remove(app);
  {
    BinaryCache cache;
    cache.use_archive(BinaryArchive::open(dir.file("r.archive")));
    cache.use_build_id_cache(kept);
    auto found = cache.get(app, id);
    REQUIRE(found.binary);
    CHECK(found.binary->path() == kept->path_of(CachedFile::kBinary, id));
    CHECK(found.binary->build_id() == id);
    CHECK(cache.get(dir.file("elsewhere/app"), id).binary == found.binary);  // one copy per build-id
    CHECK(cache.build_id_cache_supplied() == 1);
    CHECK(cache.archive_supplied() == 0);
    CHECK(cache.opened_as_recorded().empty());
    CHECK(cache.warnings().empty());
  }
  // Its build-id damaged in the cache: a warning, then the archive's copy.
  const std::string file = kept->path_of(CachedFile::kBinary, id);
  std::string bytes = testing::read_file(file);
  const size_t note = bytes.find(std::string(id.begin(), id.end()));
  REQUIRE(note != std::string::npos);
  bytes[note] = static_cast<char>(~bytes[note]);
  std::filesystem::remove(file);
  std::ofstream(file, std::ios::binary) << bytes;
  BinaryCache cache;
  cache.use_archive(BinaryArchive::open(dir.file("r.archive")));
  cache.use_build_id_cache(kept);
  auto found = cache.get(app, id);
  REQUIRE(found.binary);
  CHECK(found.binary->path() == archived_image_name(app));
  CHECK(cache.get(dir.file("elsewhere/app"), id).binary == found.binary);
  REQUIRE(cache.warnings().size() == 1);
  CHECK(cache.warnings()[0].find("ignored the build-id cache's copy of " + app + " (" + file + "): its build-id is ") ==
        0);
}
