// `swprof record` on the test workloads, checked through the recording.

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "sampler/proc.h"
#include "support/cli_harness.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof::testing;

TEST_CASE("record: single thread, sample count follows frequency x CPU time", "[integration]") {
  TempDir dir;
  const std::string out = dir.file("spin.swprof");
  auto r = run({swprof_bin(), "record", "-F", "999", "-o", out, "--", workload_bin(), "spin", "1.0"}, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("0 samples lost") != std::string::npos);
  auto s = summarize(out);
  CHECK(s.finalized);
  CHECK(s.complete);
  // 1 s of CPU time at 999 Hz; the band allows for start-up and timer slack.
  CHECK(s.samples >= 800);
  CHECK(s.samples <= 1150);
  CHECK(s.samples_by_tid.size() == 1);
  CHECK(s.samples_with_user_stack >= s.samples * 99 / 100);
  CHECK(s.samples_without_regs == 0);
  CHECK(s.mapped_paths.count(workload_bin()) == 1);
  CHECK(s.mapped_paths.count("[vdso]") == 1);
  CHECK(s.mappings_with_build_id == s.mappings);
}

TEST_CASE("record: every thread of a multi-threaded program is sampled", "[integration]") {
  TempDir dir;
  const std::string out = dir.file("threads.swprof");
  auto r = run({swprof_bin(), "record", "-o", out, workload_bin(), "threads", "3", "0.4"}, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto s = summarize(out);
  REQUIRE(s.samples_by_tid.size() == 4);  // main + 3 workers
  int workers = 0;
  for (const auto& [tid, n] : s.samples_by_tid) {
    CHECK(n >= 200);  // 0.4 s of CPU each at 999 Hz
    workers += s.comm_by_tid[tid].rfind("worker-", 0) == 0;
  }
  CHECK(workers == 3);
}

TEST_CASE("record --no-inherit follows only the main thread", "[integration]") {
  TempDir dir;
  const std::string out = dir.file("noinherit.swprof");
  auto r = run({swprof_bin(), "record", "--no-inherit", "-o", out, workload_bin(), "threads", "2", "0.3"}, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto s = summarize(out);
  CHECK(s.samples_by_tid.size() == 1);
  CHECK(s.samples >= 150);
}

TEST_CASE("record: a child that forks and execs is sampled too", "[integration]") {
  TempDir dir;
  const std::string out = dir.file("fork.swprof");
  auto r = run({swprof_bin(), "record", "-o", out, workload_bin(), "forkexec", "0.4"}, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto s = summarize(out);
  REQUIRE(s.samples_by_pid.size() == 2);
  for (const auto& [pid, n] : s.samples_by_pid) CHECK(n >= 200);
}

TEST_CASE("record: time in the kernel is kept with the user stack", "[integration]") {
  TempDir dir;
  const std::string out = dir.file("sys.swprof");
  auto r = run({swprof_bin(), "record", "-o", out, workload_bin(), "syscalls", "0.5"}, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto s = summarize(out);
  // Writing to /dev/null spends much of its time in the kernel.
  CHECK(s.kernel_mode_samples >= s.samples / 5);
  CHECK(s.samples_with_kernel_chain >= s.kernel_mode_samples * 9 / 10);
  CHECK(s.samples_with_user_stack >= s.samples * 99 / 100);
  CHECK(r.err.find("landed in the kernel") != std::string::npos);
}

TEST_CASE("record: the command's exit status becomes swprof's", "[integration]") {
  TempDir dir;
  auto r = run({swprof_bin(), "record", "-o", dir.file("e.swprof"), workload_bin(), "exit", "7"}, dir.path());
  CHECK(r.exit_code == 7);
  CHECK(summarize(dir.file("e.swprof")).end_json.find("\"exit_code\":7") != std::string::npos);
  auto killed = run({swprof_bin(), "record", "-o", dir.file("k.swprof"), "/bin/sh", "-c", "kill -9 $$"}, dir.path());
  CHECK(killed.exit_code == 128 + SIGKILL);
}

TEST_CASE("record: Ctrl-C stops sampling and finalizes the file", "[integration]") {
  TempDir dir;
  const std::string out = dir.file("int.swprof");
  auto p = spawn({swprof_bin(), "record", "-o", out, workload_bin(), "forever"}, dir.path());
  REQUIRE(wait_for_file(out));  // Ctrl-C before swprof handles it would just kill it
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  kill(p.pid, SIGINT);  // to swprof only, not its process group
  auto r = wait_for(p, 30);
  INFO(r.err);
  CHECK(r.exit_code == 128 + SIGTERM);  // the command was stopped with SIGTERM, like perf does
  auto s = summarize(out);
  CHECK(s.finalized);
  CHECK(s.samples >= 100);  // wall-clock based: the workload may share a core
  CHECK(s.end_json.find("interrupted") != std::string::npos);
}

TEST_CASE("record: a second Ctrl-C aborts while the command will not stop", "[integration]") {
  TempDir dir;
  const std::string out = dir.file("abort.swprof");
  // The command ignores SIGTERM, so after the first Ctrl-C swprof has
  // finalized the file and waits for it; the second Ctrl-C aborts the wait.
  auto p = spawn({swprof_bin(), "record", "-o", out, workload_bin(), "stubborn"}, dir.path());
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  kill(p.pid, SIGINT);
  // swprof gives the command 1 s to stop after SIGTERM, then finalizes.
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  kill(p.pid, SIGINT);
  auto r = wait_for(p, 30);
  CHECK(r.exit_code == 130);
  auto s = summarize(out);
  CHECK(s.complete);
  CHECK(s.finalized);
  CHECK(s.samples >= 100);  // wall-clock based: the workload may share a core
  REQUIRE(s.target_pid > 0);
  CHECK(swprof::process_alive(static_cast<pid_t>(s.target_pid)));  // it ignored us, as it asked
  kill(static_cast<pid_t>(s.target_pid), SIGKILL);
}

TEST_CASE("record: a \"--\" after the command's name belongs to the command", "[integration]") {
  TempDir dir;
  auto r = run({swprof_bin(), "record", "-o", dir.file("echo.swprof"), "/bin/echo", "a", "--", "b"}, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "a -- b\n");
  auto leading = run({swprof_bin(), "record", "-o", dir.file("echo2.swprof"), "--", "/bin/echo", "-n", "c"}, dir.path());
  REQUIRE(leading.exit_code == 0);
  CHECK(leading.out == "c");
}

namespace {

// Removes /tmp/perf-PID.map of the recorded program whatever the test's outcome.
struct PerfMapCleanup {
  std::string path;
  ~PerfMapCleanup() {
    if (!path.empty()) ::unlink(path.c_str());
  }
};

}  // namespace

TEST_CASE("record: a JIT's perf map is kept, so a report names its code after the map file is gone",
          "[integration]") {
  TempDir dir;
  const std::string out = dir.file("jit.swprof");
  auto r = run({swprof_bin(), "record", "-o", out, KNOWN_NAMESPACE_BIN, "0.6", "jit"}, dir.path());
  PerfMapCleanup map{"/tmp/perf-" + std::to_string(summarize(out).target_pid) + ".map"};
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(::access(map.path.c_str(), F_OK) == 0);  // the program wrote it on the host
  REQUIRE(::unlink(map.path.c_str()) == 0);
  auto report = run({swprof_bin(), "report", "-f", "folded", out}, dir.path());
  INFO(report.err);
  REQUIRE(report.exit_code == 0);
  uint64_t jitted = 0;
  size_t at = 0;
  while ((at = report.out.find("jitted_spin ", at)) != std::string::npos) jitted += std::stoull(report.out.substr(at += 12));
  CHECK(jitted >= 10);
  auto info = run({swprof_bin(), "info", "--no-unwind", out}, dir.path());
  CHECK(info.out.find("perf map       process " + std::to_string(summarize(out).target_pid)) != std::string::npos);
}

TEST_CASE("record -o onto a recording keeps it as FILE.old and makes the new one readable only by its owner",
          "[integration]") {
  TempDir dir;
  const std::string out = dir.file("twice.swprof");
  const std::vector<std::string> argv = {swprof_bin(), "record", "-F", "499", "-o", out, "--", workload_bin(), "spin", "0.1"};
  auto first = run(argv, dir.path());
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(first.err.find(".old") == std::string::npos);
  REQUIRE(::chmod(out.c_str(), 0644) == 0);  // as an older swprof left it
  const std::string first_bytes = read_file(out);
  auto second = run(argv, dir.path());
  INFO(second.err);
  REQUIRE(second.exit_code == 0);
  CHECK(second_recording_problems(out, first_bytes, second) == "");
}

TEST_CASE("record: a FILE.old that is a directory fails before the command runs", "[integration]") {
  TempDir dir;
  const std::string out = dir.file("r.swprof");
  { std::ofstream(out) << "the previous recording"; }
  REQUIRE(::mkdir((out + ".old").c_str(), 0755) == 0);
  auto r = run({swprof_bin(), "record", "-o", out, "--", "/bin/touch", dir.file("ran")}, dir.path());
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "swprof: error: cannot keep the previous recording '" + out + "' as '" + out + ".old': it is a directory\n");
  CHECK(read_file(out) == "the previous recording");
  CHECK_FALSE(std::filesystem::exists(dir.file("ran")));
}

namespace {

// The thread count of record's summary ("swprof: 0.52 s, 4 threads, ...")
// and of `info` ("threads: 4"); -1 when a line is missing.
std::pair<long, long> summary_and_info_threads(const std::string& summary, const std::string& recording,
                                               const std::string& dir) {
  std::smatch m;
  const long in_summary =
      std::regex_search(summary, m, std::regex(R"(swprof: [0-9.]+ s, ([0-9]+) threads?, )")) ? std::stol(m[1]) : -1;
  const auto info = run({swprof_bin(), "info", "--no-unwind", recording}, dir);
  const long in_info = std::regex_search(info.out, m, std::regex(R"(\nthreads: ([0-9]+)\n)")) ? std::stol(m[1]) : -1;
  return {in_summary, in_info};
}

}  // namespace

TEST_CASE("record: the summary counts the threads info lists, sampled or not", "[integration]") {
  TempDir dir;
  SECTION("a command too short for a sample") {
    const std::string out = dir.file("true.swprof");
    auto r = run({swprof_bin(), "record", "-o", out, "/bin/true"}, dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(summary_and_info_threads(r.err, out, dir.path()) == std::pair<long, long>{1, 1});
    // No sample in its millisecond or so of CPU time at -F 999, or one: a hint either way.
    CHECK(std::regex_search(r.err, std::regex(R"(\nswprof: (no samples|only 1 sample) in .*, and its threads were on one )"
                                              R"(for .*; try -F 10000 or a longer run)")));
  }
  SECTION("threads that exit before any sample") {
    const std::string out = dir.file("threads.swprof");
    auto r = run({swprof_bin(), "record", "-o", out, workload_bin(), "threads", "3", "0"}, dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(summary_and_info_threads(r.err, out, dir.path()) == std::pair<long, long>{4, 4});  // main + 3 workers
  }
}
