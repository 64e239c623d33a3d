// `record --off-cpu` / `--wall` and `attach --off-cpu` on programs whose
// waits are known (tests/programs/known_waits.c, known_contention.c).

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "recording/recording_reader.h"
#include "sampler/perf_event.h"
#include "support/cli_harness.h"
#include "support/running_program.h"
#include "support/temp_dir.h"

using namespace swprof::testing;
namespace fs = std::filesystem;

namespace {

std::string program(const std::string& name) { return std::string(KNOWN_STACK_DIR) + "/" + name; }

// What the off-CPU events left in a recording.
struct OffCpuContents {
  swprof::RecordingHeader header;
  std::map<uint32_t, uint64_t> samples_by_tid;  // off-CPU samples
  std::map<uint32_t, uint64_t> outs_by_tid;     // switch-outs
  uint64_t switch_ins = 0;
  std::map<uint32_t, uint64_t> synthesized_outs_by_tid;
  std::vector<uint64_t> synthesized_out_times;
  uint64_t repeats = 0;
  std::map<uint32_t, uint64_t> repeats_by_tid;
  uint64_t on_cpu_samples = 0;
  uint64_t off_cpu_with_period = 0;
  // Per thread, its voluntary waits (switch-outs not preempted) by length
  // until the thread's next switch-in, in time order.
  std::map<uint32_t, std::vector<uint64_t>> waits_ns_by_tid;

  uint64_t waits_shorter_than(uint32_t tid, uint64_t ns) const {
    auto it = waits_ns_by_tid.find(tid);
    if (it == waits_ns_by_tid.end()) return 0;
    return static_cast<uint64_t>(std::count_if(it->second.begin(), it->second.end(), [&](uint64_t w) { return w < ns; }));
  }

  uint32_t busiest_tid() const {
    uint32_t tid = 0;
    uint64_t most = 0;
    for (auto [t, n] : samples_by_tid)
      if (n > most) most = n, tid = t;
    return tid;
  }
};

// Pairs each thread's switch records, sorted by time (rings of different
// CPUs interleave), into the lengths of its voluntary waits.
void add_waits(const std::map<uint32_t, std::vector<swprof::SwitchRecord>>& switches, OffCpuContents& c) {
  for (auto [tid, records] : switches) {
    std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
    for (size_t i = 0; i + 1 < records.size(); ++i)
      if (records[i].out && !records[i].preempted && !records[i + 1].out)
        c.waits_ns_by_tid[tid].push_back(records[i + 1].time - records[i].time);
  }
}

OffCpuContents read_off_cpu(const std::string& path) {
  swprof::RecordingReader reader(path);
  OffCpuContents c;
  std::map<uint32_t, std::vector<swprof::SwitchRecord>> switches;
  c.header = reader.header();
  while (auto rec = reader.next()) {
    if (auto* s = std::get_if<swprof::SampleView>(&*rec)) {
      if (s->off_cpu) {
        ++c.samples_by_tid[s->tid];
        c.off_cpu_with_period += s->period != 0;
      } else {
        ++c.on_cpu_samples;
      }
    }
    if (auto* sw = std::get_if<swprof::SwitchRecord>(&*rec)) {
      switches[sw->tid].push_back(*sw);
      if (sw->out) ++c.outs_by_tid[sw->tid];
      if (sw->synthesized) ++c.synthesized_outs_by_tid[sw->tid], c.synthesized_out_times.push_back(sw->time);
      else ++c.switch_ins;
    }
    if (auto* r = std::get_if<swprof::OffCpuRepeatRecord>(&*rec)) {
      ++c.repeats;
      ++c.repeats_by_tid[r->tid];
    }
  }
  add_waits(switches, c);
  return c;
}

// `swprof script` split into samples; the off-CPU ones are those stopped
// in schedule() (the context-switch event fires there).
struct ScriptSample {
  std::string text;
  bool complete = false;
};

std::vector<ScriptSample> script_samples_in_schedule(const std::string& script) {
  std::vector<ScriptSample> out;
  std::istringstream lines(script);
  std::string header;
  bool first_frame = false, collecting = false;
  for (std::string l; std::getline(lines, l);) {
    if (l.empty()) continue;
    if (l[0] != '\t') {
      header = l;
      first_frame = true;
      collecting = false;
      continue;
    }
    if (first_frame && l.find(" schedule+") != std::string::npos) {
      out.push_back({header + "\n", header.find("(complete)") != std::string::npos});
      collecting = true;
    }
    first_frame = false;
    if (collecting) out.back().text += l + "\n";
  }
  return out;
}

size_t count_with(const std::vector<ScriptSample>& samples, const std::vector<std::string>& parts) {
  size_t n = 0;
  for (const auto& s : samples) {
    bool all = true;
    for (const auto& p : parts) all = all && s.text.find(p) != std::string::npos;
    n += all;
  }
  return n;
}

bool off_cpu_permitted() {
  if (swprof::kernel_sampling_permitted()) return true;
  WARN("off-CPU sampling needs kernel sampling (perf_event_paranoid <= 1, CAP_PERFMON or root); skipped");
  return false;
}

// The off-CPU time a text report weighs, in seconds, from its line
// "weight:    off-CPU time (12.345 s, blocked or waiting)"; -1 without one.
double report_off_cpu_seconds(const std::string& report) {
  const std::string key = "off-CPU time (";
  const size_t at = report.find(key);
  if (at == std::string::npos) return -1;
  std::istringstream in(report.substr(at + key.size()));
  double value = 0;
  std::string unit;
  if (!(in >> value >> unit)) return -1;
  if (unit.rfind("s,", 0) == 0) return value;
  if (unit.rfind("ms", 0) == 0) return value / 1e3;
  if (unit.rfind("us", 0) == 0) return value / 1e6;
  return value / 1e9;
}

// `swprof attach --off-cpu PID --duration SECONDS` into `out`, with the wall
// time it took.
struct TimedRun {
  ProcessResult result;
  double seconds = 0;
};
TimedRun attach_off_cpu(pid_t pid, const std::string& seconds, const std::string& out, const std::string& dir) {
  const auto start = std::chrono::steady_clock::now();
  TimedRun t;
  t.result = run({swprof_bin(), "attach", "--off-cpu", std::to_string(pid), "--duration", seconds, "-o", out}, dir);
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

void check_one_line_error(const ProcessResult& r, const std::string& expected) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find(expected) != std::string::npos);
}

// Shares of a profile's weight, from `report -f folded`: for each stack whose
// frames include `within`, the innermost of `names` it holds (or "other").
std::map<std::string, double> folded_shares(const std::string& folded, const std::string& within,
                                            const std::vector<std::string>& names) {
  std::map<std::string, double> weight;
  double total = 0;
  std::istringstream lines(folded);
  for (std::string l; std::getline(lines, l);) {
    const size_t space = l.rfind(' ');
    if (space == std::string::npos) continue;
    const std::string stack = ";" + l.substr(0, space) + ";";
    if (stack.find(";" + within + ";") == std::string::npos) continue;
    const double w = std::stod(l.substr(space + 1));
    std::string which = "other";
    size_t at = 0;
    for (const auto& n : names) {
      const size_t pos = stack.rfind(";" + n + ";");
      if (pos != std::string::npos && pos >= at) which = n, at = pos;
    }
    weight[which] += w;
    total += w;
  }
  for (auto& [name, w] : weight) w = total > 0 ? 100.0 * w / total : 0;
  return weight;
}

}  // namespace

TEST_CASE("off-CPU: record --wall on known_waits keeps every switch and the worker's waits with whole stacks",
          "[integration]") {
  if (!off_cpu_permitted()) return;
  TempDir dir;
  const std::string out = dir.file("wall.swprof");
  auto r = run({swprof_bin(), "record", "--wall", "-o", out, program("known_waits")}, dir.path());
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("known_waits: 100 iterations") != std::string::npos);
  CHECK(r.err.find("swprof: off-CPU: ") != std::string::npos);
  CHECK(r.err.find(", 0 lost\n") != std::string::npos);

  const OffCpuContents c = read_off_cpu(out);
  CHECK(c.header.off_cpu);
  CHECK(c.header.default_weight == "wall");
  CHECK(c.header.off_cpu_settings.every == 1);
  CHECK(c.header.off_cpu_settings.min_ns == 1'000'000);
  CHECK(c.header.off_cpu_settings.stack_size == 8192);
  CHECK(c.off_cpu_with_period == 0);
  CHECK(c.on_cpu_samples > 100);  // spin() and the rest, from the timer
  const uint32_t worker = c.busiest_tid();
  INFO("worker " << worker);
  // 100 iterations of nap() and wait_pipe(): at least 200 switch-outs, each
  // wait >= 1 ms so each has its own sample (none thinned to a repeat).
  CHECK(c.outs_by_tid.at(worker) >= 200);
  CHECK(c.samples_by_tid.at(worker) >= 200);
  CHECK(c.switch_ins >= 200);

  auto script = run({swprof_bin(), "script", out}, dir.path());
  REQUIRE(script.exit_code == 0);
  const auto waits = script_samples_in_schedule(script.out);
  uint64_t off_cpu_total = 0;
  for (auto [tid, n] : c.samples_by_tid) off_cpu_total += n;
  CHECK(waits.size() >= off_cpu_total * 95 / 100);
  size_t complete = 0;
  for (const auto& w : waits) complete += w.complete;
  CHECK(complete >= waits.size() * 95 / 100);
  // The blocking reason in the kernel chain, and the user stack below it.
  CHECK(count_with(waits, {"do_nanosleep+", " nap+", " worker+"}) >= 95);
  CHECK(count_with(waits, {"pipe_read+", " wait_pipe+", " worker+"}) >= 95);
}

TEST_CASE("off-CPU: known_contention waits under contended_lock in the futex", "[integration]") {
  if (!off_cpu_permitted()) return;
  TempDir dir;
  const std::string out = dir.file("lock.swprof");
  auto r = run({swprof_bin(), "record", "--off-cpu", "-o", out, program("known_contention"), "1"}, dir.path());
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const OffCpuContents c = read_off_cpu(out);
  CHECK(c.header.default_weight == "off-cpu");
  auto script = run({swprof_bin(), "script", out}, dir.path());
  REQUIRE(script.exit_code == 0);
  // The main thread's waits in a system call; it also spins on the CPU between
  // the holder's turns and is preempted there (irqentry_exit, exit_to_user_mode_loop).
  std::vector<ScriptSample> blocked;
  for (const auto& w : script_samples_in_schedule(script.out))
    if (w.text.find(" main+") != std::string::npos && w.text.find("irqentry_exit") == std::string::npos &&
        w.text.find("exit_to_user_mode_loop") == std::string::npos)
      blocked.push_back(w);
  const size_t in_lock = count_with(blocked, {" contended_lock+", "futex_wait", "pthread_mutex_lock"});
  INFO(in_lock << " of " << blocked.size() << " blocking waits of the main thread in the lock");
  // A second of contention blocks the main thread 40-100 times; fewer on a
  // loaded machine (42 under a sanitizer build beside a compile).
  CHECK(blocked.size() >= 20);
  CHECK(in_lock >= blocked.size() * 80 / 100);
}

TEST_CASE("off-CPU: --wall gives known_waits' worker its true shares of wall time, on-CPU it is all spin",
          "[integration]") {
  if (!off_cpu_permitted()) return;
  TempDir dir;
  const std::string out = dir.file("wall.swprof");
  auto r = run({swprof_bin(), "record", "--wall", "-o", out, program("known_waits")}, dir.path());
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const std::vector<std::string> parts = {"nap", "wait_pipe", "spin"};
  // Each iteration: nap() sleeps 4 ms, wait_pipe() blocks 3 ms, spin() runs
  // 3 ms: about 40 / 30 / 30 % of the worker's wall time. The program
  // measures the true shares itself (a loaded machine stretches sleeps).
  double truth_nap = 0, truth_wait = 0, truth_spin = 0;
  const size_t at = r.out.find("shares: ");
  REQUIRE(at != std::string::npos);
  REQUIRE(sscanf(r.out.c_str() + at, "shares: nap %lf wait_pipe %lf spin %lf", &truth_nap, &truth_wait,
                 &truth_spin) == 3);
  // The program ran as meant (a loaded machine stretches its sleeps: 51 %
  // once); the profile is checked against the shares it measured.
  CHECK(std::abs(truth_nap - 40) <= 20);
  auto wall = run({swprof_bin(), "report", "--weight", "wall", "-f", "folded", out}, dir.path());
  REQUIRE(wall.exit_code == 0);
  auto shares = folded_shares(wall.out, "worker", parts);
  INFO("profile: nap " << shares["nap"] << " wait_pipe " << shares["wait_pipe"] << " spin " << shares["spin"]
                       << " other " << shares["other"]);
  INFO("truth:   nap " << truth_nap << " wait_pipe " << truth_wait << " spin " << truth_spin);
  CHECK(std::abs(shares["nap"] - truth_nap) <= 5);
  CHECK(std::abs(shares["wait_pipe"] - truth_wait) <= 5);
  CHECK(std::abs(shares["spin"] - truth_spin) <= 5);
  // The blocking reasons are the kernel frames under each.
  CHECK(wall.out.find(";nap;") != std::string::npos);
  CHECK(wall.out.find("do_nanosleep_[k]") != std::string::npos);
  CHECK(wall.out.find("pipe_read_[k]") != std::string::npos);
  // The recording's default weight is wall: the same shares without --weight.
  auto by_default = run({swprof_bin(), "report", "-f", "folded", out}, dir.path());
  CHECK(by_default.out == wall.out);

  // On-CPU time of the same recording, and of a plain recording: spin.
  auto cpu = run({swprof_bin(), "report", "--weight", "cpu", "-f", "folded", out}, dir.path());
  REQUIRE(cpu.exit_code == 0);
  auto on_cpu = folded_shares(cpu.out, "worker", parts);
  INFO("on-CPU spin " << on_cpu["spin"]);
  CHECK(on_cpu["spin"] >= 95);
  const std::string plain = dir.file("plain.swprof");
  REQUIRE(run({swprof_bin(), "record", "-o", plain, program("known_waits")}, dir.path()).exit_code == 0);
  auto plain_report = run({swprof_bin(), "report", "-f", "folded", plain}, dir.path());
  auto plain_shares = folded_shares(plain_report.out, "worker", parts);
  INFO("plain spin " << plain_shares["spin"]);
  CHECK(plain_shares["spin"] >= 95);
}

TEST_CASE("off-CPU: the waiting thread's off-CPU time is under the lock, in the futex", "[integration]") {
  if (!off_cpu_permitted()) return;
  TempDir dir;
  const std::string out = dir.file("lock.swprof");
  auto r = run({swprof_bin(), "record", "--off-cpu", "-o", out, program("known_contention"), "1"}, dir.path());
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  auto report = run({swprof_bin(), "report", "-f", "folded", out}, dir.path());
  REQUIRE(report.exit_code == 0);
  // Time preempted (runnable, waiting for a CPU: on a busy machine, much of
  // it, anywhere) is not waiting for the lock: only blocked time is judged.
  std::string blocked;
  {
    std::istringstream lines(report.out);
    for (std::string l; std::getline(lines, l);)
      if (l.find("[preempted]") == std::string::npos) blocked += l + "\n";
  }
  // main() loops contended_lock(); the holder thread has the lock 5 ms in 6.
  auto shares = folded_shares(blocked, "main", {"contended_lock"});
  INFO("contended_lock " << shares["contended_lock"] << " % of main's blocked time");
  CHECK(shares["contended_lock"] >= 80);
  std::istringstream lines(blocked);
  double in_futex = 0, in_lock = 0;
  for (std::string l; std::getline(lines, l);) {
    if (l.find(";contended_lock;") == std::string::npos) continue;
    const double w = std::stod(l.substr(l.rfind(' ') + 1));
    in_lock += w;
    if (l.find("pthread_mutex_lock") != std::string::npos && l.find("futex_wait") != std::string::npos &&
        l.find("_[k]") != std::string::npos)
      in_futex += w;
  }
  INFO("blocked under contended_lock: " << in_lock << " ns, " << in_futex << " ns of it in the futex");
  CHECK(in_lock > 0);
  CHECK(in_futex >= in_lock * 0.95);
}

TEST_CASE("off-CPU: diff of off-CPU profiles judges time: a longer wait fails the gate, the same count of waits "
          "notwithstanding", "[integration]") {
  if (!off_cpu_permitted()) return;
  TempDir dir;
  const std::string base = dir.file("base.swprof"), slower = dir.file("slower.swprof");
  // Both runs block 60 times in nap() and 60 times in wait_pipe(); the second
  // naps 12 ms instead of 4, so nap's share of the off-CPU time rises from
  // about 57 % to 80 % while its share of the off-CPU samples stays at half.
  REQUIRE(run({swprof_bin(), "record", "--off-cpu", "-o", base, program("known_waits"), "60", "4"}, dir.path())
              .exit_code == 0);
  REQUIRE(run({swprof_bin(), "record", "--off-cpu", "-o", slower, program("known_waits"), "60", "12"}, dir.path())
              .exit_code == 0);
  auto d = run({swprof_bin(), "diff", base, slower, "--only", "^(nap|wait_pipe)$"}, dir.path());
  INFO(d.out << d.err);
  CHECK(d.exit_code == 1);
  CHECK(d.out.find("nap") != std::string::npos);
  auto same = run({swprof_bin(), "diff", base, base, "--only", "^(nap|wait_pipe)$"}, dir.path());
  INFO(same.out << same.err);
  CHECK(same.exit_code == 0);
}

TEST_CASE("off-CPU: --off-cpu-min 0 writes every stack, 100ms writes short repeated waits as repeats",
          "[integration]") {
  if (!off_cpu_permitted()) return;
  TempDir dir;
  auto all = run({swprof_bin(), "record", "--off-cpu", "--off-cpu-min", "0", "-o", dir.file("all.swprof"),
                  program("known_waits"), "50"},
                 dir.path());
  REQUIRE(all.exit_code == 0);
  const OffCpuContents every = read_off_cpu(dir.file("all.swprof"));
  CHECK(every.repeats == 0);
  CHECK(every.header.off_cpu_settings.min_ns == 0);
  // 100 ms: every wait of known_waits (4 and 3 ms, longer on a busy machine)
  // is short. The feeder's two
  // waits repeat their stacks exactly; the worker's do not (its loop counter
  // lies within the first 256 stack bytes), so each of its waits is written.
  auto thin = run({swprof_bin(), "record", "--off-cpu", "--off-cpu-min", "100ms", "-o", dir.file("thin.swprof"),
                   program("known_waits"), "50"},
                  dir.path());
  INFO(thin.err);
  REQUIRE(thin.exit_code == 0);
  const OffCpuContents thinned = read_off_cpu(dir.file("thin.swprof"));
  uint64_t samples = 0, outs = 0;
  for (auto [tid, n] : thinned.samples_by_tid) samples += n;
  for (auto [tid, n] : thinned.outs_by_tid) outs += n;
  uint32_t feeder = 0;
  uint64_t feeder_repeats = 0;
  for (auto [tid, n] : thinned.repeats_by_tid)
    if (n > feeder_repeats) feeder = tid, feeder_repeats = n;
  REQUIRE(feeder != 0);
  // Of the feeder's waits, those under 100 ms may be repeats (a longer one,
  // and a preemption, which stops it anywhere, are written with its stack).
  const uint64_t short_waits = thinned.waits_shorter_than(feeder, 100'000'000);
  INFO("feeder: " << thinned.outs_by_tid.at(feeder) << " switch-outs, " << short_waits << " voluntary waits under 100 ms, "
                  << feeder_repeats << " repeats");
  REQUIRE(short_waits >= 50);
  CHECK(feeder_repeats >= short_waits * 2 / 3);
  CHECK(samples + thinned.repeats <= outs);  // every switch-out has at most one of the two
  CHECK(samples + thinned.repeats >= outs * 95 / 100);
}

TEST_CASE("off-CPU: attach --off-cpu follows every thread of a running process", "[integration]") {
  if (!off_cpu_permitted()) return;
  TempDir dir;
  auto target = spawn({program("known_waits"), "1000"}, dir.path());
  for (int i = 0; i < 500; ++i) {
    std::ifstream in(target.out_path);
    std::string line;
    if (std::getline(in, line) && line == "ready") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const std::string out = dir.file("attach.swprof");
  auto r = run({swprof_bin(), "attach", "--off-cpu", std::to_string(target.pid), "--duration", "1", "-o", out},
               dir.path());
  kill(target.pid, SIGKILL);
  waitpid(target.pid, nullptr, 0);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const OffCpuContents c = read_off_cpu(out);
  CHECK(c.header.off_cpu);
  CHECK(c.header.mode == "attach");
  REQUIRE(c.samples_by_tid.size() >= 2);  // the worker and the feeder
  CHECK(c.outs_by_tid.at(c.busiest_tid()) >= 100);
  CHECK(c.samples_by_tid.at(c.busiest_tid()) >= 100);
  // The main thread waits in pthread_join all along: blocked at the attach,
  // it has a synthesized switch-out and its off-CPU sample.
  const uint32_t main_tid = static_cast<uint32_t>(target.pid);
  CHECK(c.synthesized_outs_by_tid.count(main_tid) == 1);
  CHECK(c.synthesized_outs_by_tid.at(main_tid) == 1);
  CHECK(c.samples_by_tid.count(main_tid) == 1);
  CHECK(r.err.find("threads already blocked at the attach") != std::string::npos);
}

TEST_CASE("off-CPU: attach --off-cpu reads hundreds of blocked threads promptly before sampling", "[integration]") {
  if (!off_cpu_permitted()) return;
  TempDir dir;
  RunningProgram target({program("known_sleepers"), "400"}, dir.path());
  REQUIRE(target.wait_threads(401, "S"));
  const std::string out = dir.file("many.swprof");
  const TimedRun t = attach_off_cpu(target.pid(), "0.5", out, dir.path());
  INFO("stderr: " << t.result.err);
  REQUIRE(t.result.exit_code == 0);
  CHECK(t.result.err.find("401 threads already blocked at the attach") != std::string::npos);
  const OffCpuContents c = read_off_cpu(out);
  REQUIRE(c.synthesized_out_times.size() == 401);
  // Each thread is stamped as it is read: the stamps span the time reading
  // them all took. Tens of ms per thread (all of /proc/kallsyms scanned for
  // each) made that seconds; a few /proc reads each are well under one.
  const auto [first, last] = std::minmax_element(c.synthesized_out_times.begin(), c.synthesized_out_times.end());
  INFO("blocked threads read in " << static_cast<double>(*last - *first) / 1e9 << " s");
  CHECK(*last - *first < 2'000'000'000ull);
}

TEST_CASE("off-CPU: attach --off-cpu charges a thread blocked all along with the whole attach", "[integration]") {
  if (!off_cpu_permitted()) return;
  TempDir dir;
  RunningProgram target({program("known_sleepers"), "20"}, dir.path());
  REQUIRE(target.wait_threads(21, "S"));
  const std::string out = dir.file("idle.swprof");
  const TimedRun t = attach_off_cpu(target.pid(), "1", out, dir.path());
  INFO("stderr: " << t.result.err);
  REQUIRE(t.result.exit_code == 0);
  CHECK(t.result.err.find("21 threads already blocked at the attach") != std::string::npos);
  const ProcessResult report = run({swprof_bin(), "report", out}, dir.path());
  REQUIRE(report.exit_code == 0);
  // No thread ran: each waited from the moment it was read, before the 1 s
  // began, to the end of the attach, which took `t.seconds` in all.
  const double off_cpu = report_off_cpu_seconds(report.out);
  INFO(report.out.substr(0, 600));
  INFO("attach took " << t.seconds << " s");
  CHECK(off_cpu >= 21 * 0.99);
  CHECK(off_cpu <= 21 * t.seconds);
}

TEST_CASE("off-CPU: attach --off-cpu counts the threads of a stopped process as blocked", "[integration]") {
  if (!off_cpu_permitted()) return;
  TempDir dir;
  // Two threads asleep in nanosleep and the main thread spinning in user
  // code, all stopped: the main thread is stopped outside a system call.
  RunningProgram target({program("known_sleepers"), "2", "spin"}, dir.path());
  REQUIRE(kill(target.pid(), SIGSTOP) == 0);
  REQUIRE(target.wait_threads(3, "T"));
  const std::string out = dir.file("stopped.swprof");
  const TimedRun t = attach_off_cpu(target.pid(), "1", out, dir.path());
  INFO("stderr: " << t.result.err);
  REQUIRE(t.result.exit_code == 0);
  CHECK(t.result.err.find("3 threads already blocked at the attach") != std::string::npos);
  const OffCpuContents c = read_off_cpu(out);
  CHECK(c.synthesized_outs_by_tid.count(static_cast<uint32_t>(target.pid())) == 1);
  const ProcessResult report = run({swprof_bin(), "report", out}, dir.path());
  REQUIRE(report.exit_code == 0);
  INFO(report.out.substr(0, 600));
  CHECK(report_off_cpu_seconds(report.out) >= 3 * 0.99);
  CHECK(report_off_cpu_seconds(report.out) <= 3 * t.seconds);
}

TEST_CASE("off-CPU: a plain record has no switch records", "[integration]") {
  TempDir dir;
  auto r = run({swprof_bin(), "record", "-o", dir.file("plain.swprof"), program("known_waits"), "20"}, dir.path());
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("off-CPU") == std::string::npos);
  const OffCpuContents c = read_off_cpu(dir.file("plain.swprof"));
  CHECK_FALSE(c.header.off_cpu);
  CHECK(c.header.default_weight == "cpu");
  CHECK(c.samples_by_tid.empty());
  CHECK(c.outs_by_tid.empty());
}

TEST_CASE("off-CPU: bad options are one line each and nothing is recorded", "[integration]") {
  TempDir dir;
  const std::string out = dir.file("bad.swprof");
  auto record = [&](std::vector<std::string> options) {
    std::vector<std::string> argv{swprof_bin(), "record", "-o", out};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(program("known_waits"));
    return run(argv, dir.path());
  };
  check_one_line_error(record({"--off-cpu-every", "0", "--off-cpu"}), "invalid --off-cpu-every 0");
  check_one_line_error(record({"--off-cpu-every", "-1", "--off-cpu"}), "invalid --off-cpu-every '-1'");
  check_one_line_error(record({"--off-cpu-every", "x", "--wall"}), "invalid --off-cpu-every 'x'");
  check_one_line_error(record({"--off-cpu-min", "-1ms", "--off-cpu"}), "invalid --off-cpu-min '-1ms'");
  check_one_line_error(record({"--off-cpu-min", "abc", "--off-cpu"}), "invalid --off-cpu-min 'abc'");
  check_one_line_error(record({"--off-cpu-min", "5", "--off-cpu"}), "invalid --off-cpu-min '5'");
  check_one_line_error(record({"--off-cpu-stack-size", "7", "--off-cpu"}), "invalid --off-cpu-stack-size 7");
  check_one_line_error(record({"--off-cpu-stack-size", "65536", "--off-cpu"}), "invalid --off-cpu-stack-size 65536");
  check_one_line_error(record({"--wall", "-e", "page-faults"}), "--wall adds off-CPU time");
  check_one_line_error(record({"--off-cpu", "-e", "page-faults"}), "use -e cpu-clock");
  check_one_line_error(record({"--off-cpu", "--wall"}), "--off-cpu and --wall cannot be used together");
  check_one_line_error(record({"--off-cpu-min", "1ms"}), "--off-cpu-min needs --off-cpu or --wall");
  check_one_line_error(record({"--off-cpu", "--no-kernel"}), "drop --no-kernel");
  check_one_line_error(run({swprof_bin(), "attach", "--off-cpu-every", "0", "--off-cpu", "1", "-o", out}, dir.path()),
                       "invalid --off-cpu-every 0");
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("off-CPU: refused without kernel sampling, naming perf_event_paranoid", "[integration]") {
  auto paranoid = swprof::perf_event_paranoid();
  if (!paranoid || *paranoid <= 1) {
    WARN("needs kernel.perf_event_paranoid >= 2 to be refused as nobody; skipped");
    return;
  }
  if (const std::string reason = nobody_skip_reason(); !reason.empty()) {
    WARN(reason << "; skipped");
    return;
  }
  TempDir dir;
  chmod(dir.path().c_str(), 0777);
  const std::string out = dir.file("denied.swprof");
  auto r = run({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", swprof_bin(), "record",
                "--off-cpu", "-o", out, program("known_waits"), "5"},
               dir.path());
  check_one_line_error(r, "off-CPU sampling needs kernel sampling: kernel.perf_event_paranoid is " +
                              std::to_string(*paranoid) + " here (<= 1 needed), or CAP_PERFMON");
  CHECK(r.err.find("or root") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}
