// OutputFile: regular files are replaced atomically, everything else that
// exists (devices, FIFOs) is written in place and keeps what it is; symbolic
// links stay links, followed by the kernel: their target is rewritten in
// place at commit.

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <thread>

#include "common/error.h"
#include "output/output_file.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

void write_output(const std::string& path, const std::string& text) {
  OutputFile out(path);
  out.stream() << text;
  out.commit();
}

struct stat lstat_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st;
}

// Names in `dir` containing ".tmp." (a temporary file left behind).
size_t temp_files_in(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    n += e.path().filename().string().find(".tmp.") != std::string::npos;
  return n;
}

// Writes `text` to `path` while a thread reads the FIFO `fifo`; what it read.
std::string write_through_fifo(const std::string& fifo, const std::string& path, const std::string& text) {
  std::string got;
  std::thread reader([&] { got = read_file(fifo); });
  try {
    write_output(path, text);
  } catch (...) {
    // The reader waits for a writer: give it one that writes nothing.
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) ::close(fd);
    reader.join();
    throw;
  }
  reader.join();
  return got;
}

}  // namespace

TEST_CASE("a new file appears complete, without a temporary file", "[output_file]") {
  TempDir dir;
  const std::string path = dir.file("out.txt");
  {
    OutputFile out(path);
    out.stream() << "partial";
    CHECK_FALSE(std::filesystem::exists(path));  // only the temporary file so far
    CHECK(temp_files_in(dir.path()) == 1);
    out.commit();
  }
  CHECK(read_file(path) == "partial");
  CHECK(temp_files_in(dir.path()) == 0);
}

TEST_CASE("a regular file is replaced atomically and keeps its permissions", "[output_file]") {
  TempDir dir;
  const std::string path = dir.file("out.txt");
  write_output(path, "old contents, longer than the new ones");
  REQUIRE(::chmod(path.c_str(), 0640) == 0);
  const ino_t before = lstat_of(path).st_ino;
  write_output(path, "new");
  CHECK(read_file(path) == "new");
  CHECK(lstat_of(path).st_ino != before);  // a new file renamed over it, not rewritten
  CHECK((lstat_of(path).st_mode & 07777) == 0640);
  CHECK(temp_files_in(dir.path()) == 0);
}

TEST_CASE("an output abandoned before commit leaves the old file and no temporary file", "[output_file]") {
  TempDir dir;
  const std::string path = dir.file("out.txt");
  write_output(path, "kept");
  {
    OutputFile out(path);
    out.stream() << "lost";
  }
  CHECK(read_file(path) == "kept");
  CHECK(temp_files_in(dir.path()) == 0);
}

TEST_CASE("a link's target is written through the link: the same file, untouched until commit", "[output_file]") {
  TempDir dir;
  REQUIRE(::mkdir(dir.file("elsewhere").c_str(), 0755) == 0);
  const std::string target = dir.file("elsewhere/target.txt"), link = dir.file("link.txt");
  write_output(target, "old contents, longer than the new ones");
  REQUIRE(::chmod(target.c_str(), 0640) == 0);
  const ino_t before = lstat_of(target).st_ino;
  REQUIRE(::symlink("elsewhere/target.txt", link.c_str()) == 0);
  {
    OutputFile out(link);
    CHECK_FALSE(out.in_place());
    out.stream() << "new";
    out.stream().flush();
    CHECK(read_file(target) == "old contents, longer than the new ones");
    CHECK(temp_files_in(dir.path()) == 0);  // nothing beside the link,
    CHECK(temp_files_in(dir.file("elsewhere")) == 0);  // nor beside its target
    out.commit();
  }
  CHECK(read_file(target) == "new");
  CHECK(lstat_of(target).st_ino == before);  // rewritten, not replaced
  CHECK((lstat_of(target).st_mode & 07777) == 0640);
  CHECK(S_ISLNK(lstat_of(link).st_mode));
  CHECK(std::filesystem::read_symlink(link) == "elsewhere/target.txt");
}

TEST_CASE("an output through a link abandoned before commit leaves the target as it was", "[output_file]") {
  TempDir dir;
  const std::string target = dir.file("target.txt"), link = dir.file("link.txt");
  write_output(target, "kept");
  REQUIRE(::symlink("target.txt", link.c_str()) == 0);
  {
    OutputFile out(link);
    out.stream() << std::string(200000, 'x');  // more than the output buffer: written out before the end
  }
  CHECK(read_file(target) == "kept");
  CHECK(temp_files_in(dir.path()) == 0);
}

// fs.protected_symlinks forbids following a link in a sticky world-writable
// directory (/tmp) unless the follower or the directory's owner owns the
// link: another user's link there cannot aim a root's output at a file of
// its choosing. That holds only when the kernel is the one following it.
TEST_CASE("another user's link in a sticky directory is refused as fs.protected_symlinks says", "[output_file]") {
  if (read_file("/proc/sys/fs/protected_symlinks").rfind('0', 0) == 0) {
    WARN("fs.protected_symlinks is 0 on this machine: the kernel follows every link, nothing to check");
    return;
  }
  if (::geteuid() != 0) {
    WARN("not root: cannot give a link to another user");
    return;
  }
  TempDir dir;
  const std::string sticky = dir.file("sticky"), victim = dir.file("victim.txt"), link = sticky + "/out.txt";
  REQUIRE(::mkdir(sticky.c_str(), 0755) == 0);
  REQUIRE(::chmod(sticky.c_str(), 01777) == 0);  // as /tmp, owned by root
  write_output(victim, "precious");
  REQUIRE(::symlink(victim.c_str(), link.c_str()) == 0);
  REQUIRE(::lchown(link.c_str(), 65534, 65534) == 0);  // planted by nobody
  CHECK_THROWS_WITH(OutputFile(link), "cannot write '" + link + "': Permission denied");
  CHECK(read_file(victim) == "precious");
  CHECK(S_ISLNK(lstat_of(link).st_mode));
  CHECK(temp_files_in(dir.path()) == 0);
  CHECK(temp_files_in(sticky) == 0);
}

TEST_CASE("a chain of links is followed to its end", "[output_file]") {
  TempDir dir;
  REQUIRE(::mkdir(dir.file("sub").c_str(), 0755) == 0);
  REQUIRE(::symlink("sub/second", dir.file("first").c_str()) == 0);
  REQUIRE(::symlink(dir.file("end.txt").c_str(), dir.file("sub/second").c_str()) == 0);
  write_output(dir.file("first"), "end");
  CHECK(read_file(dir.file("end.txt")) == "end");
  CHECK(S_ISLNK(lstat_of(dir.file("first")).st_mode));
  CHECK(S_ISLNK(lstat_of(dir.file("sub/second")).st_mode));
}

TEST_CASE("a dangling symbolic link creates its target", "[output_file]") {
  TempDir dir;
  const std::string link = dir.file("link.txt");
  REQUIRE(::symlink("created.txt", link.c_str()) == 0);
  {
    OutputFile out(link);
    out.stream() << "made";
    CHECK_FALSE(std::filesystem::exists(dir.file("created.txt")));  // only when complete
    out.commit();
  }
  CHECK(S_ISLNK(lstat_of(link).st_mode));
  CHECK(read_file(dir.file("created.txt")) == "made");
  CHECK(temp_files_in(dir.path()) == 0);
}

TEST_CASE("a symbolic link loop is an error", "[output_file]") {
  TempDir dir;
  REQUIRE(::symlink("b", dir.file("a").c_str()) == 0);
  REQUIRE(::symlink("a", dir.file("b").c_str()) == 0);
  CHECK_THROWS_WITH(OutputFile(dir.file("a")), Catch::Contains("symbolic links"));
}

TEST_CASE("a directory is refused", "[output_file]") {
  TempDir dir;
  CHECK_THROWS_WITH(OutputFile(dir.path()), Catch::Contains("Is a directory"));
}

TEST_CASE("a FIFO is written in place and stays a FIFO", "[output_file]") {
  TempDir dir;
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string text(200000, 'x');  // more than the pipe and the output buffer hold
  CHECK(write_through_fifo(fifo, fifo, text) == text);
  CHECK(S_ISFIFO(lstat_of(fifo).st_mode));
  CHECK(temp_files_in(dir.path()) == 0);
}

TEST_CASE("a symbolic link to a FIFO writes into the FIFO", "[output_file]") {
  TempDir dir;
  const std::string fifo = dir.file("fifo"), link = dir.file("link");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  REQUIRE(::symlink("fifo", link.c_str()) == 0);
  CHECK(write_through_fifo(fifo, link, "through the link\n") == "through the link\n");
  CHECK(S_ISLNK(lstat_of(link).st_mode));
  CHECK(S_ISFIFO(lstat_of(fifo).st_mode));
}

TEST_CASE("a character device is written in place and stays a device", "[output_file]") {
  TempDir dir;
  // A device node of our own with /dev/null's numbers (needs root, as the suite runs).
  const std::string node = dir.file("null");
  REQUIRE(::mknod(node.c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0);
  OutputFile out(node);
  CHECK(out.in_place());
  out.stream() << "discarded";
  out.commit();
  const struct stat st = lstat_of(node);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(st.st_rdev == makedev(1, 3));
  CHECK(temp_files_in(dir.path()) == 0);
}

TEST_CASE("a write error on a device is reported at commit, the device untouched", "[output_file]") {
  const struct stat before = lstat_of("/dev/full");
  {
    OutputFile out("/dev/full");
    out.stream() << "does not fit";
    CHECK_THROWS_WITH(out.commit(), "cannot write '/dev/full': No space left on device");
  }
  const struct stat after = lstat_of("/dev/full");
  CHECK(S_ISCHR(after.st_mode));
  CHECK(after.st_rdev == before.st_rdev);
  CHECK(after.st_ino == before.st_ino);
}

TEST_CASE("SIGTERM while writing removes the temporary file", "[output_file]") {
  TempDir dir;
  const std::string path = dir.file("out.txt");
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    signal(SIGTERM, SIG_DFL);  // the test framework catches it
    OutputFile out(path);
    out.stream() << std::string(100000, 'x');
    raise(SIGTERM);  // as if sent in the middle of a long report
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);  // the default action still ends the process
  CHECK(temp_files_in(dir.path()) == 0);
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("a /proc/self/fd link to a pipe (as /dev/stdout may be) writes into the pipe", "[output_file]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  {
    OutputFile out("/proc/self/fd/" + std::to_string(fds[1]));
    CHECK(out.in_place());
    out.stream() << "piped";
    out.commit();
  }
  ::close(fds[1]);
  char buf[16] = {};
  CHECK(::read(fds[0], buf, sizeof buf) == 5);
  CHECK(std::string(buf) == "piped");
  ::close(fds[0]);
}
