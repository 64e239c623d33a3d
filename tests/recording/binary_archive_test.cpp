#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/error.h"
#include "recording/binary_archive.h"
#include "support/archive_image.h"
#include "support/peak_rss.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

const std::vector<uint8_t> kIdA = {0xaa, 0x01, 0x02, 0x03};
const std::vector<uint8_t> kIdB = {0xbb, 0x04, 0x05, 0x06, 0x07};

Bytes bytes_of(const std::string& s) { return Bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }
std::string text_of(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

// Text that zstd compresses a few times, as it does binaries (not the
// hundreds of times of a repeated byte, which the writer leaves out).
std::string numbers(size_t n) {
  std::string s;
  for (unsigned i = 1; s.size() < n; ++i) s += std::to_string(i) + "\n";
  s.resize(n);
  return s;
}

std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::string write_archive(const TempDir& dir) {
  const std::string path = dir.file("r.archive");
  ArchiveWriter w(path);
  w.add(ArchiveKind::kBinary, kIdA, "/usr/bin/app", bytes_of(numbers(10000) + "app"));
  w.add(ArchiveKind::kDebuginfo, kIdA, "/usr/lib/debug/.build-id/aa/010203.debug", bytes_of("dwarf of app"));
  w.add(ArchiveKind::kBinary, kIdB, "/lib/libz.so.1", bytes_of("libz"));
  w.finish();
  return path;
}

// Reads every entry of the archive at `path`; the first Error's message.
std::optional<std::string> read_whole(const std::string& path) {
  try {
    auto a = BinaryArchive::open(path);
    for (const ArchiveEntry& e : a->entries()) a->read(e);
    return std::nullopt;
  } catch (const Error& e) {
    return std::string(e.what());
  }
}

}  // namespace

TEST_CASE("binary archive: files are found again by kind and build-id", "[recording][archive]") {
  TempDir dir;
  auto a = BinaryArchive::open(write_archive(dir));
  REQUIRE(a->entries().size() == 3);
  const ArchiveEntry* app = a->find(ArchiveKind::kBinary, kIdA);
  REQUIRE(app);
  CHECK(app->path == "/usr/bin/app");
  CHECK(app->compressed_size < 5000);  // compressed
  CHECK(text_of(a->read(*app)) == numbers(10000) + "app");
  const ArchiveEntry* debug = a->find(ArchiveKind::kDebuginfo, kIdA);
  REQUIRE(debug);
  CHECK(text_of(a->read(*debug)) == "dwarf of app");
  CHECK(text_of(a->read(*a->find(ArchiveKind::kBinary, kIdB))) == "libz");
  CHECK_FALSE(a->find(ArchiveKind::kDebuginfo, kIdB));
  CHECK_FALSE(a->find(ArchiveKind::kBinary, {0xcc}));
}

TEST_CASE("binary archive: an archive cut anywhere gives one clear error", "[recording][archive]") {
  TempDir dir;
  const std::vector<uint8_t> whole = file_bytes(write_archive(dir));
  const std::string cut = dir.file("cut.archive");
  for (size_t size = 0; size < whole.size(); ++size) {
    write_file(cut, std::vector<uint8_t>(whole.begin(), whole.begin() + size));
    auto problem = read_whole(cut);
    INFO("cut at " << size);
    REQUIRE(problem);
    CHECK(problem->find('\n') == std::string::npos);
    CHECK(problem->find(cut) != std::string::npos);
  }
}

TEST_CASE("binary archive: a damaged byte anywhere is an error or a checked read, never a crash",
          "[recording][archive]") {
  TempDir dir;
  const std::vector<uint8_t> whole = file_bytes(write_archive(dir));
  const std::string damaged = dir.file("damaged.archive");
  size_t errors = 0;
  for (size_t at = 0; at < whole.size(); ++at) {
    std::vector<uint8_t> bytes = whole;
    bytes[at] ^= 0x5a;
    write_file(damaged, bytes);
    auto problem = read_whole(damaged);
    if (problem) {
      ++errors;
      CHECK(problem->find('\n') == std::string::npos);
    }
  }
  // Every byte is checked (magic, version, sizes, offsets, checksums) but
  // the reserved field and the paths and build-ids in the index, which
  // only rename or rekey an entry.
  const size_t paths = std::string("/usr/bin/app/usr/lib/debug/.build-id/aa/010203.debug/lib/libz.so.1").size();
  const size_t ids = 2 * kIdA.size() + kIdB.size();
  CHECK(errors == whole.size() - 4 - paths - ids);
}

TEST_CASE("binary archive: oversized entries and indexes are refused before anything is allocated",
          "[recording][archive]") {
  TempDir dir;
  std::vector<uint8_t> bytes = file_bytes(write_archive(dir));
  const size_t trailer = bytes.size() - kArchiveTrailerSize;
  uint64_t index_offset;
  std::memcpy(&index_offset, &bytes[trailer], 8);
  // The first entry's raw size (after kind, id size, 4 id bytes, path size, path, offset, compressed size).
  const size_t raw_at = index_offset + 1 + 1 + kIdA.size() + 2 + std::string("/usr/bin/app").size() + 8 + 8;
  const uint64_t huge = uint64_t{1} << 40;
  std::vector<uint8_t> entry = bytes;
  std::memcpy(&entry[raw_at], &huge, 8);
  write_file(dir.file("entry.archive"), entry);
  auto problem = read_whole(dir.file("entry.archive"));
  REQUIRE(problem);
  CHECK(problem->find("out of bounds") != std::string::npos);

  std::vector<uint8_t> index = bytes;
  const uint32_t huge_index = 1u << 31;
  std::memcpy(&index[trailer + 12], &huge_index, 4);
  write_file(dir.file("index.archive"), index);
  problem = read_whole(dir.file("index.archive"));
  REQUIRE(problem);
  CHECK(problem->find("index is out of bounds") != std::string::npos);

  std::ofstream(dir.file("text.archive")) << "plain text, long enough to hold a header and a trailer\n";
  problem = read_whole(dir.file("text.archive"));
  REQUIRE(problem);
  CHECK(problem->find("not a swprof archive") != std::string::npos);
}

TEST_CASE("binary archive: REC.archive is found beside the recording, an explicit one must open",
          "[recording][archive]") {
  TempDir dir;
  CHECK_FALSE(find_archive(dir.file("r"), ""));
  const std::string path = write_archive(dir);
  std::filesystem::rename(path, dir.file("r.swprof.archive"));
  auto found = find_archive(dir.file("r.swprof"), "");
  REQUIRE(found);
  CHECK(found->path() == dir.file("r.swprof.archive"));
  CHECK_THROWS_AS(find_archive(dir.file("r.swprof"), dir.file("missing.archive")), Error);
}

TEST_CASE("binary archive: written mode 0600, also over an archive that was readable by others",
          "[recording][archive]") {
  TempDir dir;
  const mode_t old_umask = umask(022);
  const std::string fresh = write_archive(dir);
  umask(old_umask);
  struct stat st {};
  REQUIRE(::stat(fresh.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);

  const std::string existing = dir.file("existing.archive");
  std::ofstream(existing) << "an archive of an earlier version";
  REQUIRE(::chmod(existing.c_str(), 0644) == 0);
  ArchiveWriter w(existing);
  w.add(ArchiveKind::kBinary, kIdB, "/lib/libz.so.1", bytes_of("libz"));
  w.finish();
  REQUIRE(::stat(existing.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  CHECK(BinaryArchive::open(existing)->entries().size() == 1);
}

TEST_CASE("binary archive: a writer stopped before finish leaves the archive it replaces whole, and no file of its "
          "own",
          "[recording][archive]") {
  TempDir dir;
  const std::string path = write_archive(dir);
  const std::vector<uint8_t> before = file_bytes(path);
  {
    ArchiveWriter w(path);
    w.add(ArchiveKind::kBinary, kIdB, "/lib/libz.so.1", bytes_of(numbers(5000)));
  }  // an error or a size limit unwinding past it
  CHECK(file_bytes(path) == before);
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) files += e.path() != path;
  CHECK(files == 0);

  // A link or another kind of file at the path is never written through or replaced.
  std::filesystem::create_symlink(path, dir.file("link.archive"));
  CHECK_THROWS_WITH(ArchiveWriter(dir.file("link.archive")), Catch::Contains("is a symbolic link"));
  REQUIRE(::mkfifo(dir.file("fifo.archive").c_str(), 0600) == 0);
  const int reader = ::open(dir.file("fifo.archive").c_str(), O_RDONLY | O_NONBLOCK);  // a writer would not block
  REQUIRE(reader >= 0);
  CHECK_THROWS_WITH(ArchiveWriter(dir.file("fifo.archive")), Catch::Contains("is a FIFO"));
  ::close(reader);
  CHECK(std::filesystem::is_symlink(dir.file("link.archive")));
  CHECK(file_bytes(path) == before);
}

TEST_CASE("binary archive: entries copied from another archive read back the same", "[recording][archive]") {
  TempDir dir;
  auto from = BinaryArchive::open(write_archive(dir));
  const std::string path = dir.file("copy.archive");
  ArchiveWriter w(path);
  w.add(ArchiveKind::kBinary, {0xcc}, "/new", bytes_of(numbers(3000)));
  for (const ArchiveEntry& e : from->entries()) CHECK(w.copy(*from, e));
  w.finish();
  auto copy = BinaryArchive::open(path);
  REQUIRE(copy->entries().size() == 4);
  CHECK(text_of(copy->read(*copy->find(ArchiveKind::kBinary, {0xcc}))) == numbers(3000));
  for (const ArchiveEntry& e : from->entries()) {
    const ArchiveEntry* c = copy->find(e.kind, e.build_id);
    REQUIRE(c);
    CHECK(c->path == e.path);
    CHECK(copy->read(*c) == from->read(e));
  }
}

TEST_CASE("binary archive: the writer leaves out a file that compresses more than a reader inflates",
          "[recording][archive]") {
  TempDir dir;
  ArchiveWriter w(dir.file("zeros.archive"));
  CHECK_FALSE(w.add(ArchiveKind::kBinary, kIdA, "/zeros", bytes_of(std::string(1 << 20, '\0'))));
  CHECK(w.add(ArchiveKind::kBinary, kIdB, "/numbers", bytes_of(numbers(1 << 20))));
  w.finish();
  auto written = BinaryArchive::open(dir.file("zeros.archive"));
  REQUIRE(written->entries().size() == 1);
  CHECK(text_of(written->read(written->entries()[0])) == numbers(1 << 20));
}

TEST_CASE("binary archive: an entry claiming to inflate far beyond its bytes is refused, naming it, before any "
          "memory is taken",
          "[recording][archive]") {
  TempDir dir;
  // 512 MiB of zeros in 16 KB: the reader would hold 512 MiB for it.
  const uint64_t claimed = uint64_t{512} << 20;
  const std::vector<uint8_t> bomb = zstd_zero_frame(claimed);
  const std::vector<uint8_t> plain = zstd_zero_frame(1024);  // 1 KiB in 18 bytes: within the bound
  write_file(dir.file("bomb.archive"),
             archive_image({{0, kIdA, "/usr/bin/bomb", bomb, claimed}, {1, kIdB, "/usr/lib/debug/small", plain, 1024}}));
  auto a = BinaryArchive::open(dir.file("bomb.archive"));
  REQUIRE(a->entries().size() == 2);
  reset_peak_rss();
  const size_t before = rss_kb();
  std::string problem;
  try {
    a->read(a->entries()[0]);
  } catch (const Error& e) {
    problem = e.what();
  }
  size_t pieces = 0;
  CHECK_THROWS_WITH(a->read(a->entries()[0], [&](Bytes) { ++pieces; }), Catch::Contains("/usr/bin/bomb"));
  CHECK(peak_rss_kb() < before + 16 * 1024);  // KB: nothing like 512 MiB
  CHECK(pieces == 0);
  CHECK(problem == "archive '" + dir.file("bomb.archive") + "': the copy of /usr/bin/bomb claims 536870912 bytes " +
                       "uncompressed from " + std::to_string(bomb.size()) + ", more than 64 times as many");
  CHECK(a->read(a->entries()[1]) == std::vector<uint8_t>(1024, 0));  // the others are read as ever
}
