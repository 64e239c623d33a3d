// `swprof dump PID` on running programs with known threads
// (tests/programs/known_threads3.c, dump_waits.c).

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "support/cli_harness.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof::testing;

namespace {

std::string program(const std::string& name) { return std::string(KNOWN_STACK_DIR) + "/" + name; }

std::string proc_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A test program, killed and reaped when the test ends unless it finished.
class Target {
 public:
  Target(const std::vector<std::string>& argv, const std::string& dir) : p_(spawn(argv, dir)) {
    for (int i = 0; i < 500 && read_file(p_.out_path).rfind("ready\n", 0) != 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(read_file(p_.out_path).rfind("ready\n", 0) == 0);
  }
  ~Target() {
    if (finished_) return;
    kill(p_.pid, SIGKILL);
    wait_for(p_, 10);
  }
  pid_t pid() const { return p_.pid; }
  std::string id() const { return std::to_string(p_.pid); }
  // Sends SIGUSR1 (known_threads3 finishes) and waits for the end.
  ProcessResult release(int sig = SIGUSR1) {
    kill(p_.pid, sig);
    return finish();
  }
  ProcessResult finish() {
    ProcessResult r = wait_for(p_, 30);
    finished_ = true;
    return r;
  }

  // comm -> state letter of every thread, from /proc.
  std::map<std::string, char> states() const {
    std::map<std::string, char> out;
    for (const auto& task : std::filesystem::directory_iterator("/proc/" + id() + "/task")) {
      std::string comm = proc_text(task.path().string() + "/comm");
      std::string stat = proc_text(task.path().string() + "/stat");
      if (comm.empty() || stat.rfind(')') == std::string::npos) continue;
      comm.pop_back();
      out[comm] = stat[stat.rfind(')') + 2];
    }
    return out;
  }
  // Waits until the threads are where the program puts them.
  void wait_settled() const {
    for (int i = 0; i < 500; ++i) {
      auto s = states();
      if (s["reader"] == 'S' && s["locker"] == 'S' && s["spinner"] == 'R') return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL("the threads never settled");
  }
  std::string status(const std::string& key) const {
    std::string text = proc_text("/proc/" + id() + "/status");
    auto at = text.find(key + ":\t");
    REQUIRE(at != std::string::npos);
    at += key.size() + 2;
    return text.substr(at, text.find('\n', at) - at);
  }

 private:
  Spawned p_;
  bool finished_ = false;
};

struct DumpedFrame {
  std::string function;
  std::string module;
};

struct DumpedThread {
  std::string header;
  std::vector<DumpedFrame> user;  // real (not inlined) frames, innermost first
  std::vector<std::string> kernel;
};

// The dump's text, by thread name: the header line, the kernel frames and
// the user frames ("\t<pc> function+0xOFF (module+0xOFF) ...").
std::map<std::string, DumpedThread> parse_dump(const std::string& text) {
  std::map<std::string, DumpedThread> out;
  std::istringstream lines(text);
  DumpedThread* current = nullptr;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.rfind("process ", 0) == 0) continue;
    if (line[0] != '\t') {
      current = &out[line.substr(0, line.find(' '))];
      current->header = line;
      continue;
    }
    if (!current) continue;
    std::istringstream words(line);
    std::string pc, name, module;
    words >> pc >> name >> module;
    if (line.find("(inlined)") != std::string::npos) continue;
    if (line.find("([kernel])") != std::string::npos && line[2] == ' ') {
      current->kernel.push_back(pc);  // a blank pc column: the name came first
      continue;
    }
    module = module.substr(1, module.find('+') - 1);
    current->user.push_back({name.substr(0, name.find('+')), module});
  }
  return out;
}

std::vector<std::string> functions(const std::vector<DumpedFrame>& frames, size_t from = 0) {
  std::vector<std::string> out;
  for (size_t i = from; i < frames.size(); ++i) out.push_back(frames[i].function);
  return out;
}

// Index of the first frame outside libc (the program's own code).
size_t first_outside_libc(const std::vector<DumpedFrame>& frames) {
  size_t i = 0;
  while (i < frames.size() && frames[i].module == "libc.so.6") ++i;
  return i;
}

// A thread's chain: libc frames at the leaf (one of them named like
// `libc_leaf`), then exactly `own` (the program's functions, start_thread),
// then clone3.
void check_chain(const DumpedThread& t, const std::string& libc_leaf, const std::vector<std::string>& own) {
  INFO(t.header);
  const size_t own_at = first_outside_libc(t.user);
  bool leaf_seen = libc_leaf.empty();
  for (size_t i = 0; i < own_at; ++i) leaf_seen |= t.user[i].function.find(libc_leaf) != std::string::npos;
  CHECK(leaf_seen);
  REQUIRE(t.user.size() == own_at + own.size() + 1);
  CHECK(functions(t.user, own_at) == [&] {
    auto all = own;
    all.push_back(t.user.back().function);
    return all;
  }());
  CHECK(t.user.back().function.find("clone") != std::string::npos);
}

void check_known_threads3(const std::string& out, const std::string& binary) {
  auto threads = parse_dump(out);
  INFO(out);
  REQUIRE(threads.count("reader"));
  REQUIRE(threads.count("spinner"));
  REQUIRE(threads.count("locker"));
  REQUIRE(threads.count(binary.substr(0, 15)));  // the main thread: its comm is the program's name (15 chars)
  CHECK(threads["reader"].header.find(" state S (sleeping) wchan ") != std::string::npos);
  CHECK(threads["reader"].header.find("pipe_read") != std::string::npos);
  CHECK(threads["spinner"].header.find(" state R (running)") != std::string::npos);
  CHECK(threads["locker"].header.find(" state S (sleeping) wchan futex") != std::string::npos);
  check_chain(threads["reader"], "read", {"blocked_in_read", "reader_main", "start_thread"});
  check_chain(threads["locker"], "mutex_lock", {"blocked_in_lock", "locker_main", "start_thread"});
  REQUIRE(!threads["spinner"].user.empty());
  CHECK(functions(threads["spinner"].user) ==
        std::vector<std::string>{"spin", "spinner_main", "start_thread", threads["spinner"].user.back().function});
  const DumpedThread& main_thread = threads[binary.substr(0, 15)];
  const size_t own = first_outside_libc(main_thread.user);
  CHECK(functions(main_thread.user, own) ==
        std::vector<std::string>{"wait_for_release", "main", "__libc_start_call_main", "__libc_start_main", "_start"});
  // Kernel frames of blocked threads, from /proc/PID/task/TID/stack (root).
  CHECK(!threads["reader"].kernel.empty());
  CHECK(threads["spinner"].kernel.empty());
}

void check_finished_normally(Target& target) {
  ProcessResult r = target.release();
  CHECK(r.exit_code == 0);
  CHECK(r.out == "ready\ndone reader=1 spinner=1 locker=1\n");
}

}  // namespace

TEST_CASE("dump: each thread's chain, innermost first, blocked threads not stopped, and the program runs on",
          "[integration][dump]") {
  TempDir dir;
  Target target({program("known_threads3")}, dir.path());
  target.wait_settled();
  auto r = run({swprof_bin(), "dump", "-v", target.id()}, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  check_known_threads3(r.out, "known_threads3");
  auto threads = parse_dump(r.out);
  CHECK(r.out.rfind("process " + target.id() + " (known_threads3), 4 threads, ", 0) == 0);
  // Blocked threads unwind from ip and sp alone here; only the running one was stopped.
  CHECK(r.err.find("thread " + target.id() + " read without stopping it") != std::string::npos);
  CHECK(r.err.find(" stopped for ") != std::string::npos);
  CHECK(r.err.find("read without stopping it") != std::string::npos);
  CHECK(target.status("TracerPid") == "0");
  check_finished_normally(target);
}

TEST_CASE("dump: a blocked thread whose walk needs more than ip and sp is read again, stopped",
          "[integration][dump]") {
  TempDir dir;
  Target target({program("known_threads3_fp")}, dir.path());
  target.wait_settled();
  auto r = run({swprof_bin(), "dump", "-v", target.id()}, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  check_known_threads3(r.out, "known_threads3_fp");
  // The reader's frame has a run-time size: its caller comes from rbp.
  const std::string reader_line = r.out.substr(r.out.find("\nreader ") + 1);  // "reader PID/TID state ..."
  const size_t slash = reader_line.find('/');
  const std::string reader_tid = reader_line.substr(slash + 1, reader_line.find(' ', slash) - slash - 1);
  CHECK(r.err.find("thread " + reader_tid + " stopped for ") != std::string::npos);
  check_finished_normally(target);
}

TEST_CASE("dump --stop: every thread stopped at one instant, the same chains", "[integration][dump]") {
  TempDir dir;
  Target target({program("known_threads3")}, dir.path());
  target.wait_settled();
  auto r = run({swprof_bin(), "dump", "--stop", "-v", target.id()}, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  check_known_threads3(r.out, "known_threads3");
  CHECK(r.err.find("read without stopping it") == std::string::npos);
  check_finished_normally(target);
}

TEST_CASE("dump --json: one snapshot with every thread", "[integration][dump]") {
  TempDir dir;
  Target target({program("known_threads3")}, dir.path());
  target.wait_settled();
  auto r = run({swprof_bin(), "dump", "--json", target.id()}, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["pid"] == target.pid());
  CHECK(j["time"].is_string());
  REQUIRE(j["threads"].size() == 4);
  std::map<std::string, nlohmann::json> by_comm;
  for (const auto& t : j["threads"]) by_comm[t["comm"]] = t;
  REQUIRE(by_comm.count("reader"));
  const auto& reader = by_comm["reader"];
  CHECK(reader["state"] == "S");
  CHECK(reader["error"].is_null());
  CHECK(reader["frames"][0]["kind"] == "kernel");
  std::vector<std::string> user;
  for (const auto& f : reader["frames"])
    if (f["kind"] == "user") user.push_back(f["function"]);
  REQUIRE(user.size() >= 4);
  CHECK(std::find(user.begin(), user.end(), "blocked_in_read") != user.end());
  CHECK(std::find(user.begin(), user.end(), "reader_main") != user.end());
  CHECK(by_comm["spinner"]["state"] == "R");
  CHECK(by_comm["spinner"]["frames"][0]["function"] == "spin");
  CHECK(by_comm["spinner"]["frames"][0]["file"].get<std::string>().find("known_threads3.c") != std::string::npos);
  check_finished_normally(target);
}

TEST_CASE("dump killed (SIGKILL) while it takes snapshots leaves the process untraced and running",
          "[integration][dump]") {
  TempDir dir;
  Target target({program("known_threads3")}, dir.path());
  target.wait_settled();
  Spawned dump = spawn({swprof_bin(), "dump", "--stop", "--samples", "1000", "--interval", "1", "-o",
                        dir.file("killed.swprof"), target.id()},
                       dir.path());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  kill(dump.pid, SIGKILL);
  CHECK(wait_for(dump, 30).exit_code == 128 + SIGKILL);
  CHECK(target.status("TracerPid") == "0");
  for (int i = 0; i < 100; ++i) {  // detached threads leave the tracing stop at once
    bool traced = false;
    for (auto& [comm, state] : target.states()) traced |= state == 't';
    if (!traced) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (auto& [comm, state] : target.states()) CHECK(state != 't');
  check_finished_normally(target);
}

TEST_CASE("dump --samples ended by SIGTERM finalizes its recording and leaves the process untraced",
          "[integration][dump]") {
  TempDir dir;
  Target target({program("known_threads3")}, dir.path());
  target.wait_settled();
  const std::string rec = dir.file("interrupted.swprof");
  Spawned dump = spawn({swprof_bin(), "dump", "--samples", "100000", "--interval", "5", "-o", rec, target.id()},
                       dir.path());
  for (int i = 0; i < 500 && !std::filesystem::exists(rec); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a few snapshots
  kill(dump.pid, SIGTERM);
  ProcessResult r = wait_for(dump, 30);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  auto s = summarize(rec);
  CHECK(s.finalized);
  CHECK(s.samples >= 4);
  CHECK(s.end_json.find("interrupted by SIGTERM") != std::string::npos);
  CHECK(target.status("TracerPid") == "0");
  check_finished_normally(target);
}

TEST_CASE("dump of a stopped (SIGSTOP) process leaves it stopped, and SIGCONT finishes it", "[integration][dump]") {
  TempDir dir;
  Target target({program("known_threads3")}, dir.path());
  target.wait_settled();
  kill(target.pid(), SIGSTOP);
  for (int i = 0; i < 500 && target.states()["spinner"] != 'T'; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  for (const char* mode : {"--verbose", "--stop"}) {
    auto r = run({swprof_bin(), "dump", mode, target.id()}, dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("stopped (SIGSTOP): left stopped") != std::string::npos);
    CHECK(r.out.find("blocked_in_read") != std::string::npos);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (auto& [comm, state] : target.states()) {
      INFO(comm);
      CHECK(state == 'T');
    }
  }
  kill(target.pid(), SIGCONT);
  check_finished_normally(target);
}

TEST_CASE("dump never fails because threads exit during the snapshot", "[integration][dump]") {
  TempDir dir;
  Target target({program("known_threads3"), "churn"}, dir.path());
  for (int i = 0; i < 20; ++i) {
    auto r = run({swprof_bin(), "dump", i % 2 ? "--stop" : "--verbose", target.id()}, dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("churn_main") != std::string::npos);
  }
  ProcessResult r = target.release();
  CHECK(r.exit_code == 0);
  CHECK(r.out == "ready\ndone churn\n");
}

TEST_CASE("dump leaves epoll_wait, poll, select and accept to their timeouts, --stop ends epoll_wait and accept "
          "with EINTR",
          "[integration][dump]") {
  TempDir dir;
  auto waits_after = [&](const std::string& mode) {
    Target target({program("dump_waits")}, dir.path());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // every thread in its wait
    std::vector<std::string> args = {swprof_bin(), "dump", target.id()};
    if (!mode.empty()) args.insert(args.begin() + 2, mode);
    auto r = run(args, dir.path());
    INFO(r.err);
    CHECK(r.exit_code == 0);
    ProcessResult done = target.finish();
    CHECK(done.exit_code == 0);
    return done.out;
  };
  const std::string plain = waits_after("");
  CHECK(plain.find("EINTR") == std::string::npos);
  CHECK(plain.find("epoll_wait -> 0\n") != std::string::npos);
  CHECK(plain.find("poll -> 0\n") != std::string::npos);
  CHECK(plain.find("select -> 0\n") != std::string::npos);
  CHECK(plain.find("accept -> -1 EAGAIN\n") != std::string::npos);
  // The caveat of --stop in docs/dump.md, kept true.
  const std::string stopped = waits_after("--stop");
  CHECK(stopped.find("epoll_wait -> -1 EINTR\n") != std::string::npos);
  CHECK(stopped.find("accept -> -1 EINTR\n") != std::string::npos);
  CHECK(stopped.find("poll -> 0\n") != std::string::npos);
  CHECK(stopped.find("select -> 0\n") != std::string::npos);
}

TEST_CASE("dump --samples writes a wall-clock recording that report reads", "[integration][dump]") {
  TempDir dir;
  Target target({program("known_threads3")}, dir.path());
  target.wait_settled();
  const std::string rec = dir.file("dump.swprof");
  auto r = run({swprof_bin(), "dump", "--samples", "3", "--interval", "20", "-o", rec, target.id()}, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto s = summarize(rec);
  CHECK(s.finalized);
  CHECK(s.samples == 12);  // 3 snapshots of 4 threads
  CHECK(s.samples_by_tid.size() == 4);
  CHECK(s.comm_by_tid.size() == 4);
  CHECK(s.mapped_paths.count(program("known_threads3")) == 1);
  auto report = run({swprof_bin(), "report", rec}, dir.path());
  INFO(report.err);
  CHECK(report.exit_code == 0);
  CHECK(report.out.find("ptrace-wall") != std::string::npos);
  CHECK(report.out.find("blocked_in_read") != std::string::npos);
  CHECK(report.out.find("spinner_main") != std::string::npos);
  auto info = run({swprof_bin(), "info", rec}, dir.path());
  CHECK(info.out.find("mode:         dump") != std::string::npos);
  check_finished_normally(target);
}

TEST_CASE("dump: what cannot be dumped, in one line each, with a non-zero exit", "[dump]") {
  TempDir dir;
  pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "no PID given"},
      {{"0"}, "invalid PID '0'"},
      {{"-5"}, "invalid PID '-5'"},
      {{"abc"}, "invalid PID 'abc'"},
      {{std::to_string(gone)}, "no such process " + std::to_string(gone)},
      {{"2"}, "2 is a kernel thread (kthreadd): it has no user stack"},
      {{"--samples", "0", "1"}, "invalid --samples '0'"},
      {{"--interval", "0", "1"}, "invalid --interval '0'"},
      {{"--json", "--samples", "3", "1"}, "--json shows one snapshot"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> argv = {swprof_bin(), "dump"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run(argv, dir.path());
    INFO(r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.err.find(message) != std::string::npos);
    CHECK(line_count(r.err) == 1);
    CHECK(r.out.empty());
  }
  // swprof itself: the shell's pid is swprof's after exec.
  auto self = run({"/bin/sh", "-c", "exec \"$0\" dump $$", swprof_bin()}, dir.path());
  CHECK(self.exit_code != 0);
  CHECK(self.err == "swprof: error: swprof cannot dump itself\n");
}

TEST_CASE("dump as another user, or of a process already traced: who may trace, and who does", "[integration][dump]") {
  TempDir dir;
  Target target({program("known_threads3")}, dir.path());
  target.wait_settled();
  auto nobody = run({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", swprof_bin(), "dump",
                     target.id()},
                    dir.path());
  CHECK(nobody.exit_code != 0);
  CHECK(line_count(nobody.err) == 1);
  CHECK(nobody.err.find("not permitted to trace " + target.id() + " (owned by uid 0)") != std::string::npos);
  CHECK(nobody.err.find("CAP_SYS_PTRACE") != std::string::npos);
  // Traced by this test: dump names the tracer.
  REQUIRE(ptrace(PTRACE_SEIZE, target.pid(), nullptr, nullptr) == 0);
  auto traced = run({swprof_bin(), "dump", target.id()}, dir.path());
  ptrace(PTRACE_INTERRUPT, target.pid(), nullptr, nullptr);
  waitpid(target.pid(), nullptr, __WALL);
  ptrace(PTRACE_DETACH, target.pid(), nullptr, nullptr);
  CHECK(traced.exit_code != 0);
  CHECK(traced.err.find(target.id() + " is already traced by PID " + std::to_string(getpid())) != std::string::npos);
  check_finished_normally(target);
}
