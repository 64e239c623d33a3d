// `swprof record` never leaves its command behind: not after an error once
// the command runs, not after a signal, not when swprof itself is killed.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/unique_fd.h"
#include "sampler/proc.h"
#include "support/cli_harness.h"
#include "support/temp_dir.h"

using namespace swprof::testing;
namespace fs = std::filesystem;

namespace {

// The workload under a name unique to `dir`, so its processes can be told
// from every other process on the machine by their argv[0].
std::string unique_workload(const TempDir& dir) {
  const std::string link = dir.file("cleanup-workload");
  fs::create_symlink(workload_bin(), link);
  return link;
}

// Live (not zombie) processes whose argv[0] is `argv0`.
std::vector<pid_t> processes_running(const std::string& argv0) {
  std::vector<pid_t> found;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream cmdline(entry.path() / "cmdline");
    std::string first;
    if (std::getline(cmdline, first, '\0') && first == argv0) found.push_back(std::stoi(name));
  }
  return found;
}

// Waits up to 10 s for the command to run (true) or, with `running` false,
// to be gone.
bool wait_until(const std::string& argv0, bool running) {
  for (int i = 0; i < 1000; ++i) {
    if (processes_running(argv0).empty() != running) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

void kill_leftovers(const std::string& argv0) {
  for (pid_t pid : processes_running(argv0)) kill(pid, SIGKILL);
}

}  // namespace

TEST_CASE("record: disk full (/dev/full) stops the command and fails in one line", "[integration]") {
  TempDir dir;
  const std::string w = unique_workload(dir);
  auto r = run({swprof_bin(), "record", "-o", "/dev/full", w, "forever"}, dir.path(), 60);
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find("No space left on device") != std::string::npos);
  CHECK(processes_running(w).empty());
  kill_leftovers(w);
}

TEST_CASE("record: a write error while sampling (reader of a FIFO gone) stops the command", "[integration]") {
  TempDir dir;
  const std::string w = unique_workload(dir);
  const std::string fifo = dir.file("out.fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  // A reader before swprof opens the FIFO: its open does not block.
  auto reader = std::make_unique<swprof::UniqueFd>(open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  REQUIRE(reader->valid());
  auto p = spawn({swprof_bin(), "record", "-o", fifo, w, "forever"}, dir.path());
  REQUIRE(wait_until(w, true));  // the command runs: the error comes after it started
  // swprof opens the FIFO after starting the command: wait for its header.
  pollfd header_written = {reader->get(), POLLIN, 0};
  REQUIRE(poll(&header_written, 1, 10000) == 1);
  reader.reset();  // the next chunk write fails with EPIPE
  auto r = wait_for(p, 60);
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find("cannot write output file") != std::string::npos);
  CHECK(r.err.find("Broken pipe") != std::string::npos);
  CHECK(processes_running(w).empty());
  kill_leftovers(w);
}

TEST_CASE("record: SIGHUP, SIGQUIT and SIGUSR1 finalize the file and stop the command like Ctrl-C", "[integration]") {
  const std::pair<int, const char*> signals[] = {{SIGHUP, "SIGHUP"}, {SIGQUIT, "SIGQUIT"}, {SIGUSR1, "SIGUSR1"}};
  for (const auto& [sig, name] : signals) {
    TempDir dir;
    const std::string w = unique_workload(dir);
    const std::string out = dir.file("sig.swprof");
    auto p = spawn({swprof_bin(), "record", "-o", out, w, "forever"}, dir.path());
    REQUIRE(wait_until(w, true));
    kill(p.pid, sig);
    auto r = wait_for(p, 30);
    INFO(name << ", stderr: " << r.err);
    CHECK(r.exit_code == 128 + SIGTERM);  // the command's status: stopped with SIGTERM
    auto s = summarize(out);
    CHECK(s.finalized);
    CHECK(s.end_json.find(std::string("interrupted by ") + name) != std::string::npos);
    CHECK(processes_running(w).empty());
    kill_leftovers(w);
  }
}

TEST_CASE("record: SIGPIPE to swprof is not fatal: sampling goes on", "[integration]") {
  TempDir dir;
  const std::string w = unique_workload(dir);
  const std::string out = dir.file("pipe.swprof");
  auto p = spawn({swprof_bin(), "record", "-o", out, w, "forever"}, dir.path());
  REQUIRE(wait_until(w, true));
  kill(p.pid, SIGPIPE);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(p.pid, SIGINT);  // still there to be stopped by Ctrl-C
  auto r = wait_for(p, 30);
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 128 + SIGTERM);
  auto s = summarize(out);
  CHECK(s.finalized);
  CHECK(s.end_json.find("\"interrupted\"") != std::string::npos);
  CHECK(processes_running(w).empty());
  kill_leftovers(w);
}

TEST_CASE("record: when swprof is killed outright, the command gets SIGTERM", "[integration]") {
  TempDir dir;
  const std::string w = unique_workload(dir);
  auto p = spawn({swprof_bin(), "record", "-o", dir.file("k.swprof"), w, "forever"}, dir.path());
  REQUIRE(wait_until(w, true));
  kill(p.pid, SIGKILL);
  wait_for(p, 30);
  CHECK(wait_until(w, false));
  kill_leftovers(w);
}

TEST_CASE("attach: SIGHUP finalizes the file and leaves the target running, not stopped", "[integration]") {
  TempDir dir;
  const std::string w = unique_workload(dir);
  auto target = spawn({w, "forever"}, dir.path());
  REQUIRE(wait_until(w, true));
  const std::string out = dir.file("attach.swprof");
  auto p = spawn({swprof_bin(), "attach", "-o", out, std::to_string(target.pid)}, dir.path());
  // Sampling has started once the header is on disk.
  for (int i = 0; i < 1000 && !(fs::exists(out) && fs::file_size(out) > 0); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(p.pid, SIGHUP);
  auto r = wait_for(p, 30);
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 0);
  auto s = summarize(out);
  CHECK(s.finalized);
  CHECK(s.end_json.find("interrupted by SIGHUP") != std::string::npos);
  auto state = swprof::process_state(target.pid);
  REQUIRE(state.has_value());
  CHECK(*state != 'T');
  CHECK(*state != 't');
  CHECK(swprof::process_alive(target.pid));
  kill(target.pid, SIGKILL);
  waitpid(target.pid, nullptr, 0);
}
