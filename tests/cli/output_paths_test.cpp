// `-o` (and diff's --html/--folded) end to end: devices and FIFOs are
// written in place and stay what they are, a write error is one line and
// exit 2; a symbolic link is written through; an output that is one of the
// inputs is refused; a signal that ends the command leaves no temporary file.

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
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

// The golden recording as `name` in `dir`.
void copy_recording(const TempDir& dir, const std::string& name) {
  std::filesystem::copy_file(std::string(GOLDEN_DIR) + "/recording/known_tiny.swprof", dir.file(name));
}

// Names in `dir` containing ".tmp." (a temporary file left behind).
size_t temp_files_in(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    n += e.path().filename().string().find(".tmp.") != std::string::npos;
  return n;
}

// Starts `argv` in `dir` with `sig` at its default action and its stderr
// into a pipe that is already full: the command blocks at its first line
// there (a report's summary, printed once the input is loaded, before the
// output is committed) until it is signalled. `pipe_read` keeps the pipe.
pid_t spawn_with_full_stderr(const std::vector<std::string>& argv, const std::string& dir, int sig, int& pipe_read) {
  int fds[2];
  REQUIRE(::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0);
  const std::string page(4096, 'x');
  while (::write(fds[1], page.data(), page.size()) > 0) {
  }
  REQUIRE(::fcntl(fds[1], F_SETFL, 0) == 0);  // from now on a write waits
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(fds[1], 2);
    ::signal(sig, SIG_DFL);
    if (::chdir(dir.c_str()) != 0) _exit(126);
    ::setpgid(0, 0);
    ::execv(args[0], args.data());
    _exit(127);
  }
  ::close(fds[1]);
  pipe_read = fds[0];
  return pid;
}

// Waits (at most a minute) until `path` exists.
bool appears(const std::string& path) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!std::filesystem::exists(path)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
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

TEST_CASE("report -o a symbolic link writes the report into its target", "[output_paths]") {
  TempDir dir;
  copy_profiles(dir);
  REQUIRE(::mkdir(dir.file("reports").c_str(), 0755) == 0);
  std::ofstream(dir.file("reports/base.txt")) << "an older report";
  REQUIRE(::symlink("reports/base.txt", dir.file("latest.txt").c_str()) == 0);
  const ino_t inode = stat_of(dir.file("reports/base.txt")).st_ino;
  const ProcessResult r = run({swprof_bin(), "report", "base.json", "-o", "latest.txt"}, dir.path());
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(read_file(dir.file("reports/base.txt")) == run({swprof_bin(), "report", "base.json"}, dir.path()).out);
  CHECK(stat_of(dir.file("reports/base.txt")).st_ino == inode);
  CHECK(S_ISLNK(stat_of(dir.file("latest.txt")).st_mode));
}

TEST_CASE("an output that is one of the inputs is refused: one line, exit 2, the input untouched", "[output_paths]") {
  TempDir dir;
  copy_profiles(dir);
  copy_recording(dir, "rec.swprof");
  REQUIRE(::symlink("rec.swprof", dir.file("rec.link").c_str()) == 0);
  REQUIRE(::link(dir.file("rec.swprof").c_str(), dir.file("rec.hard").c_str()) == 0);
  std::map<std::string, std::string> inputs;
  for (const char* name : {"base.json", "new.json", "rec.swprof"}) inputs[name] = read_file(dir.file(name));
  const std::vector<std::vector<std::string>> commands = {
      {"report", "rec.swprof", "-f", "json", "-o", "rec.swprof"},
      {"report", "rec.swprof", "-o", "rec.link"},  // through a symbolic link
      {"report", "rec.link", "-o", "rec.hard"},    // a hard link
      {"report", "base.json", "--archive", "new.json", "-o", "new.json"},
      {"flamegraph", "rec.swprof", "-o", "rec.swprof"},
      {"flamegraph", "base.json", "-o", "base.json"},
      {"merge", "base.json", "new.json", "-o", "base.json"},
      {"merge", "rec.swprof", "base.json", "-o", "rec.hard"},
      {"diff", "base.json", "new.json", "-o", "new.json"},
      {"diff", "base.json", "new.json", "--html", "base.json"},
      {"diff", "base.json", "new.json", "--folded", "new.json"},
      {"archive", "rec.swprof", "-o", "rec.hard"},
  };
  for (const auto& args : commands) {
    std::vector<std::string> argv = {swprof_bin()};
    argv.insert(argv.end(), args.begin(), args.end());
    const ProcessResult r = run(argv, dir.path());
    INFO(args[0] << " " << args[1] << " ... " << args[args.size() - 2] << " " << args.back() << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find("would overwrite the input") != std::string::npos);
    CHECK(r.err.find("choose another " + args[args.size() - 2]) != std::string::npos);
    for (const auto& [name, bytes] : inputs) CHECK(read_file(dir.file(name)) == bytes);
  }
  // The archive a report of the recording reads.
  REQUIRE(run({swprof_bin(), "archive", "rec.swprof"}, dir.path()).exit_code == 0);
  const std::string archive = read_file(dir.file("rec.swprof.archive"));
  const ProcessResult a = run({swprof_bin(), "report", "rec.swprof", "-o", "rec.swprof.archive"}, dir.path());
  INFO(a.err);
  CHECK(a.exit_code == 2);
  CHECK(a.err.find("would overwrite the input 'rec.swprof.archive'") != std::string::npos);
  CHECK(read_file(dir.file("rec.swprof.archive")) == archive);
  // Standard output appended to the input (script and info have no -o).
  for (const char* command : {"script", "info", "report"}) {
    const ProcessResult r =
        run({"/bin/sh", "-c", "exec \"$0\" " + std::string(command) + " rec.swprof >>rec.swprof", swprof_bin()},
            dir.path());
    INFO(command << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find("standard output would write into the input 'rec.swprof'") != std::string::npos);
    CHECK(read_file(dir.file("rec.swprof")) == inputs["rec.swprof"]);
  }
  CHECK(temp_files_in(dir.path()) == 0);
}

TEST_CASE("a signal that ends report -o leaves no temporary file and is the exit status", "[output_paths]") {
  for (int sig : {SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGRTMIN}) {
    TempDir dir;
    copy_recording(dir, "rec.swprof");
    int pipe_read = -1;
    const pid_t pid = spawn_with_full_stderr({swprof_bin(), "report", "rec.swprof", "-o", "out.txt"}, dir.path(), sig,
                                             pipe_read);
    const bool started = appears(dir.file("out.txt.tmp." + std::to_string(pid)));
    ::kill(pid, started ? sig : SIGKILL);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    ::close(pipe_read);
    INFO("signal " << sig);
    REQUIRE(started);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);
    CHECK(temp_files_in(dir.path()) == 0);
    CHECK_FALSE(std::filesystem::exists(dir.file("out.txt")));
  }
}
