#include "profile/archive_builder.h"

#include <linux/perf_event.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "binary/binary_cache.h"
#include "recording/binary_archive.h"
#include "recording/build_id.h"
#include "recording/recording_writer.h"
#include "support/perf_data_image.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;
namespace fs = std::filesystem;

namespace {

MappingRecord mapping(const std::string& path, const BuildId& id, uint32_t prot, uint64_t start) {
  MappingRecord m;
  m.pid = m.tid = 100;
  m.start = start;
  m.length = 0x1000;
  m.prot = prot;
  m.path = path;
  m.build_id_size = static_cast<uint8_t>(id.size());
  std::copy(id.begin(), id.end(), m.build_id.begin());
  return m;
}

// A mapping without a build-id, naming its file by device and inode (as a
// perf.data does for a file no sample landed in).
MappingRecord by_inode(const std::string& path, uint64_t start) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  MappingRecord m = mapping(path, {}, 5, start);
  m.dev_major = major(st.st_dev);
  m.dev_minor = minor(st.st_dev);
  m.inode = st.st_ino;
  return m;
}

// A copy of the test program at `path` as another build: its build-id's
// last byte changed (what the build-id says of the bytes is not checked).
BuildId copy_as_another_build(const std::string& path) {
  std::string bytes = read_file(KNOWN_NAMESPACE_BIN);
  const BuildId id = read_build_id(KNOWN_NAMESPACE_BIN).value_or(BuildId{});
  REQUIRE_FALSE(id.empty());
  const size_t at = bytes.find(std::string(id.begin(), id.end()));
  REQUIRE(at != std::string::npos);
  bytes[at + id.size() - 1] ^= 0x5a;
  std::ofstream(path, std::ios::binary) << bytes;
  REQUIRE(::chmod(path.c_str(), 0755) == 0);
  const BuildId other = read_build_id(path).value_or(BuildId{});
  REQUIRE(other.size() == id.size());
  REQUIRE(other != id);
  return other;
}

// The test program at `app` and another build of it at `other`, in a folder.
struct TwoBuilds {
  TempDir dir;
  std::string app, other;
  BuildId app_id, other_id;
  TwoBuilds(const std::string& app_name, const std::string& other_name)
      : app(dir.file(app_name)), other(dir.file(other_name)) {
    fs::copy_file(KNOWN_NAMESPACE_BIN, app);
    app_id = read_build_id(app).value_or(BuildId{});
    other_id = copy_as_another_build(other);
  }
};

void write_recording(const std::string& path, const std::vector<MappingRecord>& mappings) {
  RecordingHeader h;
  h.mode = "record";
  RecordingWriter w(path, h);
  for (const MappingRecord& m : mappings) w.write(m);
  w.finish(EndRecord{"{}"});
}

// The same mappings in a perf.data: MMAP2 records, and the build-ids in its
// build-id feature.
void write_perf_data(const std::string& path, const std::vector<MappingRecord>& mappings) {
  PerfDataImage img;
  PerfImageEvent e;
  e.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  e.ids = {5};
  img.add_event(e);
  for (const MappingRecord& m : mappings) {
    if (m.build_id_size) img.add_build_id(m.path, ByteVector(m.build_id.begin(), m.build_id.begin() + m.build_id_size));
    img.add_record(img.mmap2(m.pid, m.start, m.length, 0, m.path, 100, {m.dev_major, m.dev_minor, m.inode}));
  }
  const ByteVector bytes = img.build();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace

TEST_CASE("archive builder: executable mappings whose file is the recorded build, each build-id once",
          "[archive_builder]") {
  TempDir dir;
  const std::string app = dir.file("app");
  fs::copy_file(KNOWN_NAMESPACE_BIN, app);
  const BuildId id = read_build_id(app).value_or(BuildId{});
  REQUIRE_FALSE(id.empty());
  fs::copy_file(KNOWN_NAMESPACE_BIN, dir.file("changed"));
  const std::string recording = dir.file("r.swprof");
  {
    RecordingHeader h;
    h.mode = "record";
    RecordingWriter w(recording, h);
    w.write(mapping(app, id, 5, 0x400000));
    w.write(mapping(app, id, 5, 0x500000));               // mapped twice
    w.write(mapping(dir.file("data"), id, 3, 0x600000));  // not executable
    w.write(mapping(dir.file("gone"), {1, 2, 3}, 5, 0x700000));
    w.write(mapping(dir.file("changed"), {4, 5, 6}, 5, 0x800000));
    w.write(mapping(dir.file("no-id"), {}, 5, 0x900000));
    w.write(mapping("//anon", {}, 7, 0xa00000));
    w.finish(EndRecord{"{}"});
  }
  ArchiveOptions options;
  options.symbols.debug_roots = {dir.file("no-debug")};
  const ArchiveResult r = write_archive(recording, options);
  CHECK(r.output == recording + ".archive");
  REQUIRE(r.stored.size() == 1);
  CHECK(r.stored[0].path == app);
  CHECK(r.stored[0].build_id == to_hex(id));
  CHECK_FALSE(r.stored[0].debuginfo);  // its DWARF is in it
  REQUIRE(r.missing.size() == 1);
  CHECK(r.missing[0].starts_with(dir.file("gone") + ": "));
  CHECK(r.changed == std::vector<std::string>{dir.file("changed")});
  CHECK(r.without_build_id == std::vector<std::string>{dir.file("no-id")});

  auto archive = BinaryArchive::open(r.output);
  CHECK(archive->entries().size() == 1);
  CHECK(r.archive_bytes == fs::file_size(r.output));
  const std::vector<uint8_t> copy = archive->read(*archive->find(ArchiveKind::kBinary, id));
  CHECK(std::string(copy.begin(), copy.end()) == read_file(app));
}

TEST_CASE("archive builder: separate debuginfo found by build-id is archived with its binary", "[archive_builder]") {
  TempDir dir;
  const std::string app = dir.file("app");
  fs::copy_file(KNOWN_NAMESPACE_BIN, app);
  const BuildId id = read_build_id(app).value_or(BuildId{});
  // The binary stripped of its DWARF, the DWARF under a debug root by build-id.
  const std::string hex = to_hex(id);
  const std::string debug = dir.file("debug/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug");
  fs::create_directories(fs::path(debug).parent_path());
  REQUIRE(std::system(("objcopy --only-keep-debug " + app + " " + debug + " && strip -g " + app).c_str()) == 0);
  const std::string recording = dir.file("r.swprof");
  {
    RecordingHeader h;
    h.mode = "record";
    RecordingWriter w(recording, h);
    w.write(mapping(app, id, 5, 0x400000));
    w.finish(EndRecord{"{}"});
  }
  ArchiveOptions options;
  options.output = dir.file("out.archive");
  options.symbols.debug_roots = {dir.file("debug")};
  const ArchiveResult r = write_archive(recording, options);
  REQUIRE(r.stored.size() == 2);
  CHECK(r.stored[1].debuginfo);
  CHECK(r.stored[1].path == debug);
  auto archive = BinaryArchive::open(dir.file("out.archive"));
  REQUIRE(archive->find(ArchiveKind::kDebuginfo, id));
  CHECK(archive->find(ArchiveKind::kDebuginfo, id)->path == debug);
}

TEST_CASE("archive builder: a mapping without a recorded build-id is archived when the file is the one mapped",
          "[archive_builder]") {
  TempDir dir;
  const std::string app = dir.file("app"), other = dir.file("other");
  fs::copy_file(KNOWN_NAMESPACE_BIN, app);
  fs::copy_file(KNOWN_NAMESPACE_BIN, other);
  const BuildId id = read_build_id(app).value_or(BuildId{});
  REQUIRE_FALSE(id.empty());
  struct stat st {};
  REQUIRE(::stat(app.c_str(), &st) == 0);
  auto identified = [&](const std::string& path, uint64_t inode, uint64_t start) {
    MappingRecord m = mapping(path, {}, 5, start);  // as a perf.data gives a file no sample landed in
    m.dev_major = major(st.st_dev);
    m.dev_minor = minor(st.st_dev);
    m.inode = inode;
    return m;
  };
  const std::string recording = dir.file("r.swprof");
  {
    RecordingHeader h;
    h.mode = "record";
    RecordingWriter w(recording, h);
    w.write(identified(app, st.st_ino, 0x400000));
    w.write(identified(other, st.st_ino, 0x500000));  // the same device and inode as app: not this file
    w.finish(EndRecord{"{}"});
  }
  const ArchiveResult r = write_archive(recording, ArchiveOptions{});
  REQUIRE(r.stored.size() == 1);
  CHECK(r.stored[0].path == app);
  CHECK(r.stored[0].build_id == to_hex(id));
  CHECK(r.not_the_mapped_file == std::vector<std::string>{other});
  CHECK(r.without_build_id.empty());

  // A report finds it by path: the mapping has no build-id to look it up by.
  auto archive = BinaryArchive::open(r.output);
  REQUIRE(archive->find_binary_at(app) != nullptr);
  CHECK(archive->find_binary_at(other) == nullptr);
  fs::remove(app);
  BinaryCache cache;
  cache.use_archive(archive);
  auto found = cache.get(app, {});
  REQUIRE(found.binary);
  CHECK(found.binary->build_id() == id);
  CHECK(found.binary->path() == archived_image_name(app));
  CHECK(cache.archive_supplied() == 1);
}

TEST_CASE("archive builder: another user's recording has copied only what that user could read, and nothing by "
          "device and inode",
          "[archive_builder]") {
  if (geteuid() != 0) {
    WARN("needs root to own files as another user; skipped");
    return;
  }
  for (const bool perf_data : {false, true}) {
    INFO((perf_data ? "perf.data" : "own format"));
    // A program only root may read, and one anyone may.
    TwoBuilds b("secret", "shared");
    const TempDir& dir = b.dir;
    const std::string &secret = b.app, &shared = b.other;
    const BuildId &secret_id = b.app_id, &shared_id = b.other_id;
    REQUIRE(::chmod(dir.path().c_str(), 0755) == 0);  // as a home folder: others may look in
    REQUIRE(::chmod(secret.c_str(), 0700) == 0);
    // A recording written by nobody: the secret named by the device and
    // inode anyone can stat, and by its build-id; the shared program by its.
    const std::string recording = dir.file(perf_data ? "perf.data" : "r.swprof");
    const std::vector<MappingRecord> mappings = {by_inode(secret, 0x400000), mapping(secret, secret_id, 5, 0x500000),
                                                 mapping(shared, shared_id, 5, 0x600000)};
    if (perf_data) {
      // A perf.data has one build-id per path: the secret by inode under another name, a link to it.
      fs::create_symlink(secret, dir.file("secret-link"));
      std::vector<MappingRecord> named = mappings;
      named[0].path = dir.file("secret-link");
      write_perf_data(recording, named);
    } else {
      write_recording(recording, mappings);
    }
    REQUIRE(::chown(recording.c_str(), 65534, 65534) == 0);

    const ArchiveResult r = write_archive(recording, ArchiveOptions{});
    REQUIRE(r.stored.size() == 1);
    CHECK(r.stored[0].path == shared);
    const std::string by_inode_path = perf_data ? dir.file("secret-link") : secret;
    CHECK_THAT(r.refused,
               Catch::UnorderedEquals(std::vector<std::string>{
                   by_inode_path + ": the recording is another user's (uid 65534) and gives no build-id for it",
                   secret + ": the recording's owner (uid 65534) could not read it (" + secret +
                       " is mode 0700, owned by uid 0 and gid 0)"}));
    auto archive = BinaryArchive::open(r.output);
    CHECK(archive->entries().size() == 1);
    CHECK_FALSE(archive->find(ArchiveKind::kBinary, secret_id));

    // The same recording, root's own: the secret is archived (its build-id is the recorded one).
    REQUIRE(::chown(recording.c_str(), 0, 0) == 0);
    const ArchiveResult own = write_archive(recording, ArchiveOptions{});
    CHECK(own.refused.empty());
    CHECK(own.stored.size() == 2);
  }
}

TEST_CASE("archive builder: a file over the archive's limits is left out by name, the others stored",
          "[archive_builder]") {
  TwoBuilds b("app", "huge");
  const std::string &app = b.app, &huge = b.other;
  fs::resize_file(huge, kMaxArchiveEntryBytes + 1);  // sparse: nothing of it is written
  const std::string recording = b.dir.file("r.swprof");
  write_recording(recording, {mapping(huge, b.other_id, 5, 0x400000), mapping(app, b.app_id, 5, 0x500000)});
  const ArchiveResult r = write_archive(recording, ArchiveOptions{});
  REQUIRE(r.skipped.size() == 1);
  CHECK(r.skipped[0] == huge + ": it is 2048.0 MB, more than the 2 GiB an archive holds of a file");
  REQUIRE(r.stored.size() == 1);
  CHECK(r.stored[0].path == app);
  CHECK(BinaryArchive::open(r.output)->find(ArchiveKind::kBinary, b.app_id));
}

TEST_CASE("archive builder: the entries of the archive replaced whose files are gone or rebuilt are kept",
          "[archive_builder]") {
  TwoBuilds b("app", "lib");
  const std::string &app = b.app, &lib = b.other;
  const BuildId &app_id = b.app_id, &lib_id = b.other_id;
  const std::string recording = b.dir.file("r.swprof");
  write_recording(recording, {mapping(app, app_id, 5, 0x400000), mapping(lib, lib_id, 5, 0x500000)});
  REQUIRE(write_archive(recording, ArchiveOptions{}).stored.size() == 2);
  const std::string app_bytes = read_file(app);

  fs::remove(app);  // gone
  fs::remove(lib);
  fs::copy_file(KNOWN_NAMESPACE_BIN, lib);  // rebuilt: another build-id
  const ArchiveResult r = write_archive(recording, ArchiveOptions{});
  CHECK(r.stored.empty());
  CHECK(r.changed == std::vector<std::string>{lib});
  REQUIRE(r.kept.size() == 2);
  CHECK(r.kept[0].path == app);
  CHECK(r.kept[1].path == lib);
  auto archive = BinaryArchive::open(r.output);
  REQUIRE(archive->find(ArchiveKind::kBinary, app_id));
  REQUIRE(archive->find(ArchiveKind::kBinary, lib_id));
  const std::vector<uint8_t> copy = archive->read(*archive->find(ArchiveKind::kBinary, app_id));
  CHECK(std::string(copy.begin(), copy.end()) == app_bytes);

  // A damaged archive in the way is replaced, and says so.
  fs::resize_file(r.output, fs::file_size(r.output) - 3);
  const ArchiveResult again = write_archive(recording, ArchiveOptions{});
  CHECK(again.previous_problem.find("is damaged") != std::string::npos);
  CHECK(again.kept.empty());
  CHECK(BinaryArchive::open(again.output)->entries().empty());
}
