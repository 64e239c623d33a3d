// `swprof archive`: a recording's binaries travel with it, so its report
// names the same frames after a binary was deleted or rebuilt.

#include <linux/perf_event.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "recording/binary_archive.h"
#include "support/archive_image.h"
#include "support/built_program.h"
#include "support/cli_harness.h"
#include "support/compressed_dwarf.h"
#include "support/perf_data_image.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof::testing;
namespace fs = std::filesystem;

namespace {

// The program built in the test's folder (support/built_program.h), its
// reports made without the build-id cache: only the archive gives them the
// recorded binaries.
struct Traveller : BuiltProgram {
  Traveller() { common_options = {"--no-cache"}; }
  // Built, recorded and archived (REC.archive).
  void archived() {
    build(false, "-O1");
    record();
    REQUIRE(swprof({"archive", recording}).exit_code == 0);
  }
};

}  // namespace

TEST_CASE("archive: stores the program, and a report of it after it was deleted names the same frames and lines",
          "[integration][archive]") {
  Traveller t;
  t.build(false, "-O1");
  t.record();
  const std::string before = t.script();
  REQUIRE(before.find("leaf_work+0x") != std::string::npos);
  REQUIRE(before.find("app.c:") != std::string::npos);

  auto a = t.swprof({"archive", t.recording});
  INFO(a.err);
  REQUIRE(a.exit_code == 0);
  CHECK(a.out.find("binary    " + t.app) != std::string::npos);
  CHECK(a.out.find("in " + t.recording + ".archive") != std::string::npos);
  REQUIRE(fs::exists(t.recording + ".archive"));

  struct stat st {};
  REQUIRE(::stat((t.recording + ".archive").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);  // it holds copies of files others may not read

  fs::remove(t.app);
  CHECK(t.script() == before);
  auto info = t.swprof({"info", t.recording});
  CHECK(info.out.find("archive:      " + t.recording + ".archive") != std::string::npos);
  CHECK(info.out.find("supplied 1 missing or changed binaries") != std::string::npos);
  auto report = t.swprof({"report", t.recording});
  CHECK(report.err.find("is missing") == std::string::npos);
}

// The program's CFI only in .debug_frame, its other DWARF compressed: the
// unwinder reads .debug_frame without opening that DWARF (libdw would
// decompress it into the binary's image: a crash over the file's read-only
// mapping, and from the archive an image the symbolizer can no longer read).
TEST_CASE("archive: a program with compressed DWARF beside a plain .debug_frame unwinds and names its lines, from the "
          "file and from the archive",
          "[integration][archive]") {
  Traveller t;
  std::ofstream(t.dir.file("app.c")) << built_program_source(false);
  auto cc = run({"/usr/bin/cc", "-O1", "-g", "-fomit-frame-pointer", "-fno-asynchronous-unwind-tables",
                 "-fno-unwind-tables", "-o", t.dir.file("plain"), t.dir.file("app.c")},
                t.dir.path());
  INFO(cc.err);
  REQUIRE(cc.exit_code == 0);
  REQUIRE(write_compressed_dwarf_plain_debug_frame(t.dir.file("plain"), t.app, t.dir.path()));
  REQUIRE(section_compressed(t.app, ".debug_info"));
  REQUIRE_FALSE(section_compressed(t.app, ".debug_frame"));
  t.record();
  const std::string before = t.script();
  CHECK(before.find("leaf_work+0x") != std::string::npos);
  CHECK(before.find("app.c:") != std::string::npos);
  auto folded = t.swprof({"report", "-f", "folded", t.recording});
  CHECK(folded.exit_code == 0);
  CHECK(folded.err.find("warning") == std::string::npos);
  CHECK(folded.out.find("main;middle_call;leaf_work") != std::string::npos);

  REQUIRE(t.swprof({"archive", t.recording}).exit_code == 0);
  fs::remove(t.app);
  CHECK(t.script() == before);
  auto report = t.swprof({"report", t.recording});
  CHECK(report.exit_code == 0);
  CHECK(report.err.find("warning") == std::string::npos);
}

TEST_CASE("archive: a program rebuilt differently is named from the archive, and without it the report warns",
          "[integration][archive]") {
  Traveller t;
  t.build(false, "-O1");
  t.record();
  const std::string before = t.script();
  REQUIRE(t.swprof({"archive", "-o", t.dir.file("elsewhere.archive"), t.recording}).exit_code == 0);
  t.build(true, "-O0");  // another build-id, every function at another address

  auto without = t.swprof({"report", t.recording});
  CHECK(without.err.find(t.app + " changed since it was recorded") != std::string::npos);
  CHECK(without.err.find("'swprof archive RECORDING' where it was recorded, before its binaries change") !=
        std::string::npos);
  CHECK(t.script({"--archive", t.dir.file("elsewhere.archive")}) == before);
  fs::rename(t.dir.file("elsewhere.archive"), t.recording + ".archive");
  CHECK(t.script() == before);  // found beside the recording
  auto folded = t.swprof({"report", "-f", "folded", t.recording});
  CHECK(folded.err.find("changed since it was recorded") == std::string::npos);
  CHECK(folded.out.find("main;middle_call;leaf_work") != std::string::npos);
}

TEST_CASE("archive: says what it could not store, and a damaged archive is one clear error",
          "[integration][archive]") {
  Traveller t;
  t.build(false, "-O1");
  t.record();
  t.build(true, "-O1");
  auto a = t.swprof({"archive", t.recording});
  INFO(a.err);
  REQUIRE(a.exit_code == 0);
  CHECK(a.err.find("not archived, changed since it was recorded (another build-id): " + t.app) != std::string::npos);
  CHECK(a.out.find("binary    " + t.app) == std::string::npos);

  fs::resize_file(t.recording + ".archive", fs::file_size(t.recording + ".archive") - 3);
  auto report = t.swprof({"report", t.recording});
  CHECK(report.exit_code == 2);
  CHECK(line_count(report.err) == 1);
  CHECK(report.err.find("is damaged") != std::string::npos);

  auto self = t.swprof({"archive", "-o", t.recording, t.recording});
  CHECK(self.exit_code != 0);
  CHECK(self.err.find("would overwrite the input") != std::string::npos);
}

TEST_CASE("archive: run again where the program is gone, keeps its copy, and reports still name its frames",
          "[integration][archive]") {
  Traveller t;
  t.archived();
  const std::string before = t.script();

  fs::remove(t.app);  // the laptop the recording and its archive were copied to
  auto again = t.swprof({"archive", t.recording});
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(again.out.find("binary    " + t.app + " (kept from the archive replaced, ") != std::string::npos);
  CHECK(again.out.find("; 1 kept from the archive replaced") != std::string::npos);
  CHECK(t.script() == before);

  t.build(true, "-O0");  // rebuilt: the copy of the recorded build is kept, the new build is not the recorded one
  REQUIRE(t.swprof({"archive", t.recording}).exit_code == 0);
  CHECK(t.script() == before);
}

TEST_CASE("archive: a run stopped by the file size limit leaves the archive it would replace whole",
          "[integration][archive]") {
  Traveller t;
  t.archived();
  const std::string archive = t.recording + ".archive";
  const std::string good = read_file(archive);
  REQUIRE(good.size() > 2048);
  const std::string before = t.script();

  // setrlimit(RLIMIT_FSIZE) of 1 KiB, then exec: writes past it fail with
  // EFBIG (SIGXFSZ ignored), or the signal ends the process.
  for (const char* on_limit : {"trap '' XFSZ;", ""}) {
    INFO(on_limit);
    const std::string script = std::string(on_limit) + " ulimit -f 2 && exec \"$0\" archive \"$1\"";
    auto cut = run({"/bin/sh", "-c", script, swprof_bin(), t.recording}, t.dir.path());
    CHECK(cut.exit_code != 0);
    CHECK(read_file(archive) == good);
    if (*on_limit) {
      CHECK(line_count(cut.err) == 1);
      CHECK(cut.err.find("cannot write archive '" + archive + "': File too large (an archive already there is kept)") !=
            std::string::npos);
      size_t files = 0;  // the temporary file is removed
      for (const auto& e : fs::directory_iterator(t.dir.path())) files += e.path().string().find(".tmp.") != std::string::npos;
      CHECK(files == 0);
    }
  }
  fs::remove(t.app);
  CHECK(t.script() == before);
}

TEST_CASE("archive: an entry that would inflate far beyond its bytes is one warning for report and info, which go on",
          "[integration][archive]") {
  Traveller t;
  t.archived();
  const std::string archive = t.recording + ".archive";
  const auto good = swprof::BinaryArchive::open(archive);
  REQUIRE(good->find_binary_at(t.app));
  const swprof::ArchiveEntry entry = *good->find_binary_at(t.app);
  // The program's entry, its build-id and path, now 256 MiB of zeros in 8 KB
  // (the libraries, on disk, are not needed).
  const uint64_t claimed = uint64_t{256} << 20;
  const std::vector<uint8_t> bomb =
      archive_image({{0, entry.build_id, entry.path, zstd_zero_frame(claimed), claimed}});
  std::ofstream(archive, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(bomb.data()), bomb.size());
  fs::remove(t.app);

  const std::string warning = "archive '" + archive + "': the copy of " + t.app + " claims 268435456 bytes uncompressed";
  for (const char* command : {"report", "info"}) {
    INFO(command);
    auto r = t.swprof({command, t.recording});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find(warning) != std::string::npos);
    CHECK(r.err.find(t.app + " is not taken from it") != std::string::npos);
  }
}

TEST_CASE("archive: another user's perf.data naming a file only root may read, by device and inode, has it not "
          "copied",
          "[integration][archive]") {
  if (geteuid() != 0) {
    WARN("needs root to own files as another user; skipped");
    return;
  }
  TempDir dir;
  REQUIRE(::chmod(dir.path().c_str(), 0777) == 0);  // nobody's folder: anyone writes there
  const std::string secret = dir.file("secret");
  fs::copy_file(workload_bin(), secret);
  REQUIRE(::chmod(secret.c_str(), 0700) == 0);
  struct stat st {};
  REQUIRE(::stat(secret.c_str(), &st) == 0);
  // What nobody can write: a perf.data mapping the secret by the device and inode stat shows anyone.
  PerfDataImage img;
  PerfImageEvent e;
  e.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  e.ids = {5};
  img.add_event(e);
  img.add_record(img.mmap2(42, 0x400000, 0x1000, 0, secret, 100,
                           {major(st.st_dev), minor(st.st_dev), static_cast<uint64_t>(st.st_ino)}));
  const ByteVector bytes = img.build();
  const std::string recording = dir.file("perf.data");
  std::ofstream(recording, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  REQUIRE(::chown(recording.c_str(), 65534, 65534) == 0);

  auto r = run({swprof_bin(), "archive", recording}, dir.path());
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("stored 0 binaries") != std::string::npos);
  CHECK(r.err.find("swprof: warning: not archived, refused: " + secret +
                   ": the recording is another user's (uid 65534) and gives no build-id for it") != std::string::npos);
  CHECK(swprof::BinaryArchive::open(recording + ".archive")->entries().empty());
}
