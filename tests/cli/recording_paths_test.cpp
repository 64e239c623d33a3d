// A recording names files (its mappings' paths) that may have become FIFOs
// or devices on the machine reading it: `info` and `report` must still
// finish promptly, with a warning naming the path.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "recording/recording_writer.h"
#include "support/cli_harness.h"
#include "support/record_fixtures.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// A recording of process 100 with one executable mapping of `mapped_path`
// and a few samples whose pc is inside it.
void write_recording(const std::string& path, const std::string& mapped_path) {
  RecordingHeader h;
  h.mode = "record";
  h.command = {mapped_path};
  h.event = "cpu-clock";
  h.frequency = 999;
  h.stack_size = 1024;
  h.regs_mask = 0xff0fff;
  stamp_header(h);
  RecordingWriter w(path, h);
  w.write(make_mapping(1, mapped_path, false));
  w.write(CommRecord{2, 100, 100, true, "app"});
  for (uint64_t i = 0; i < 5; ++i) {
    auto sample = make_sample(100, 10 + i, 0x7ff000010000, std::vector<uint8_t>(256, 0));
    sample.view.regs[8] = 0x400100 + i;  // the pc, inside the mapping
    sample.view.ip = sample.view.regs[8];
    w.write(sample.view);
  }
  w.finish(EndRecord{R"({"samples":5})"});
}

// Releases a reader that opened `fifo` (should a regression open it).
void release_fifo(const std::string& fifo) {
  const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) ::close(fd);
}

}  // namespace

TEST_CASE("a mapping path that is a FIFO: info and report finish with a warning", "[recording_paths]") {
  TempDir dir;
  const std::string fifo = dir.file("app");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  write_recording(dir.file("rec.swprof"), fifo);
  for (const char* command : {"info", "report"}) {
    const ProcessResult r = run({swprof_bin(), command, "rec.swprof"}, dir.path(), 30);
    release_fifo(fifo);
    INFO(command << "\n" << r.err);
    CHECK(r.err.find("(timed out)") == std::string::npos);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("cannot open " + fifo + " (is a FIFO, not a regular file)") != std::string::npos);
  }
  CHECK(S_ISFIFO([&] {
    struct stat st {};
    ::lstat(fifo.c_str(), &st);
    return st.st_mode;
  }()));
}

TEST_CASE("a mapping path that links to /dev/zero is not read", "[recording_paths]") {
  TempDir dir;
  const std::string link = dir.file("app");
  REQUIRE(::symlink("/dev/zero", link.c_str()) == 0);
  write_recording(dir.file("rec.swprof"), link);
  const ProcessResult r = run({swprof_bin(), "report", "rec.swprof"}, dir.path(), 60);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("cannot open " + link + " (is a character device, not a regular file)") != std::string::npos);
}
