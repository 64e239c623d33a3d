// `swprof attach` on running workloads.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "support/cli_harness.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof::testing;

namespace {

// Waits until the workload printed "ready" (it is running main()).
void wait_ready(const Spawned& p) {
  for (int i = 0; i < 500; ++i) {
    std::ifstream in(p.out_path);
    std::string line;
    if (std::getline(in, line) && line == "ready") return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL("workload did not start");
}

void stop(const Spawned& p) {
  kill(p.pid, SIGKILL);
  waitpid(p.pid, nullptr, 0);
}

// CPU time (user + system) the process has used, from /proc/PID/stat.
double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));  // after "pid (comm) "
  std::string field;
  unsigned long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoul(field);
    if (i == 15) stime = std::stoul(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace

TEST_CASE("attach: samples a running process for --duration", "[integration]") {
  TempDir dir;
  auto target = spawn({workload_bin(), "forever"}, dir.path());
  wait_ready(target);
  const std::string out = dir.file("attach.swprof");
  const double cpu_before = cpu_seconds(target.pid);
  auto r = run({swprof_bin(), "attach", std::to_string(target.pid), "--duration", "1", "-o", out}, dir.path());
  const double cpu_used = cpu_seconds(target.pid) - cpu_before;
  stop(target);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto s = summarize(out);
  CHECK(s.finalized);
  // cpu-clock samples follow the CPU time the target got, which a loaded
  // machine makes less than the 1 s attached; the exact rate is checked by
  // the CPU-time based record test. Half of 999 Hz of that time is a floor no
  // working attach falls under, however busy the machine.
  // cpu_used spans all of swprof's run, its start and end (the build-id
  // cache kept) too, where the one-thread target runs unsampled: of it, at
  // most the 1 s attached was sampled.
  INFO("target CPU time while swprof ran: " << cpu_used << " s");
  CHECK(static_cast<double>(s.samples) >= std::max(10.0, 0.5 * 999 * std::min(cpu_used, 1.0) - 100));
  CHECK(s.samples_by_pid.size() == 1);
  CHECK(s.samples_by_pid.count(static_cast<uint32_t>(target.pid)) == 1);
  // The mappings that existed before attaching were synthesized from /proc.
  CHECK(s.mapped_paths.count(workload_bin()) == 1);
  CHECK(s.mappings_with_build_id >= 2);
  CHECK(s.comm_by_tid.count(static_cast<uint32_t>(target.pid)) == 1);
  CHECK(s.end_json.find("duration") != std::string::npos);
}

TEST_CASE("attach: follows threads started after attaching and stops when the process exits", "[integration]") {
  TempDir dir;
  // Main spins 0.6 s, then starts 2 workers; all spin 0.3 s, then the process exits.
  auto target = spawn({workload_bin(), "threads", "2", "0.3", "0.6"}, dir.path());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const std::string out = dir.file("late.swprof");
  auto r = run({swprof_bin(), "attach", std::to_string(target.pid), "-o", out}, dir.path(), 60);
  waitpid(target.pid, nullptr, 0);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto s = summarize(out);
  CHECK(s.end_json.find("target exited") != std::string::npos);
  CHECK(s.samples_by_tid.size() == 3);
  int workers = 0;
  for (const auto& [tid, name] : s.comm_by_tid) workers += name.rfind("worker-", 0) == 0;
  CHECK(workers == 2);
}

TEST_CASE("attach: Ctrl-C stops and finalizes", "[integration]") {
  TempDir dir;
  auto target = spawn({workload_bin(), "forever"}, dir.path());
  wait_ready(target);
  const std::string out = dir.file("int.swprof");
  auto p = spawn({swprof_bin(), "attach", std::to_string(target.pid), "-o", out}, dir.path());
  REQUIRE(wait_for_file(out));  // Ctrl-C before swprof handles it would just kill it
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  kill(p.pid, SIGINT);
  auto r = wait_for(p, 30);
  stop(target);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  auto s = summarize(out);
  CHECK(s.finalized);
  CHECK(s.samples >= 100);  // wall-clock based: the workload may share a core
  CHECK(s.end_json.find("interrupted") != std::string::npos);
}

TEST_CASE("attach -o onto a recording keeps it as FILE.old", "[integration]") {
  TempDir dir;
  auto target = spawn({workload_bin(), "forever"}, dir.path());
  wait_ready(target);
  const std::string out = dir.file("again.swprof");
  const std::vector<std::string> argv = {swprof_bin(), "attach", std::to_string(target.pid), "--duration", "0.2", "-o", out};
  auto first = run(argv, dir.path());
  const std::string first_bytes = read_file(out);
  auto second = run(argv, dir.path());
  stop(target);
  INFO(first.err << second.err);
  REQUIRE(first.exit_code == 0);
  REQUIRE(second.exit_code == 0);
  CHECK(second_recording_problems(out, first_bytes, second) == "");
}
