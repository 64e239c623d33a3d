// `-o` (and diff's --html/--folded) on files that are not regular files:
// devices and FIFOs are written in place and stay what they are; a write
// error is one line and exit 2.

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <thread>

#include "support/cli_harness.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof::testing;

namespace {

struct stat stat_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st;
}

// A temp dir holding the diff golden inputs base.json and new.json.
void copy_profiles(const TempDir& dir) {
  for (const char* name : {"base.json", "new.json"})
    std::filesystem::copy_file(std::string(GOLDEN_DIR) + "/diff/" + name, dir.file(name));
}

// Lets a reader still blocked opening `fifo` (the writer failed before
// opening it) see an end of file instead of waiting forever.
void release_fifo_reader(const std::string& fifo) {
  const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) ::close(fd);
}

}  // namespace

TEST_CASE("every command's -o /dev/full: one line, exit 2, /dev/full untouched", "[output_paths]") {
  TempDir dir;
  copy_profiles(dir);
  const struct stat before = stat_of("/dev/full");
  const std::vector<std::vector<std::string>> commands = {
      {"report", "base.json", "-o", "/dev/full"},
      {"flamegraph", "base.json", "-o", "/dev/full"},
      {"merge", "base.json", "new.json", "-o", "/dev/full"},
      {"diff", "base.json", "new.json", "-o", "/dev/full"},
      {"diff", "base.json", "new.json", "--folded", "/dev/full"},
      {"diff", "base.json", "new.json", "--html", "/dev/full"},
  };
  for (const auto& args : commands) {
    std::vector<std::string> argv = {swprof_bin()};
    argv.insert(argv.end(), args.begin(), args.end());
    const ProcessResult r = run(argv, dir.path());
    INFO(args[0] << " " << args[args.size() - 2] << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err == "swprof: error: cannot write '/dev/full': No space left on device\n");
  }
  // annotate reads recordings only: the summary of the one read, then the error.
  const ProcessResult annotated =
      run({swprof_bin(), "annotate", std::string(GOLDEN_DIR) + "/recording/known_tiny.swprof", "-o", "/dev/full"},
          dir.path());
  CHECK(annotated.exit_code == 2);
  CHECK(line_count(annotated.err) == 2);
  CHECK(annotated.err.find("swprof: error: cannot write '/dev/full': No space left on device\n") != std::string::npos);
  const struct stat after = stat_of("/dev/full");
  CHECK(S_ISCHR(after.st_mode));
  CHECK(after.st_rdev == before.st_rdev);
  CHECK(after.st_mode == before.st_mode);
}

TEST_CASE("output into a character device keeps the device", "[output_paths]") {
  TempDir dir;
  copy_profiles(dir);
  const std::string node = dir.file("null");
  REQUIRE(::mknod(node.c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0);  // /dev/null's numbers
  for (const char* command : {"report", "flamegraph"}) {
    const ProcessResult r = run({swprof_bin(), command, "base.json", "-o", "null"}, dir.path());
    INFO(command << "\n" << r.err);
    CHECK(r.exit_code == 0);
  }
  const ProcessResult d = run({swprof_bin(), "diff", "base.json", "new.json", "-o", "null", "--html", "null"}, dir.path());
  CHECK(d.exit_code == 1);  // the golden inputs regress
  const struct stat st = stat_of(node);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(st.st_rdev == makedev(1, 3));
}

TEST_CASE("report into a FIFO: the reader gets the report", "[output_paths]") {
  TempDir dir;
  copy_profiles(dir);
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string got;
  std::thread reader([&] { got = read_file(fifo); });
  const ProcessResult r = run({swprof_bin(), "report", "base.json", "-o", "fifo"}, dir.path(), 60);
  release_fifo_reader(fifo);
  reader.join();
  const ProcessResult to_stdout = run({swprof_bin(), "report", "base.json"}, dir.path());
  CHECK(r.exit_code == 0);
  CHECK(!got.empty());
  CHECK(got == to_stdout.out);
  CHECK(S_ISFIFO(stat_of(fifo).st_mode));
}
