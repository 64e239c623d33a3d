#include "profile/archive_builder.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "binary/binary_cache.h"
#include "recording/binary_archive.h"
#include "recording/build_id.h"
#include "recording/recording_writer.h"
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
