#include "sampler/blocked_threads.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>

#include "sampler/perf_event.h"
#include "support/running_program.h"
#include "support/temp_dir.h"

using namespace swprof;
using swprof::testing::RunningProgram;
using swprof::testing::TempDir;

namespace {

std::string known_sleepers() { return std::string(KNOWN_STACK_DIR) + "/known_sleepers"; }

}  // namespace

TEST_CASE("the syscall line of a blocked thread gives its system call, sp and pc", "[blocked_threads]") {
  auto sc = parse_task_syscall("230 0x0 0x0 0x7ffef9ac4a20 0x7ffef9ac4a60 0x0 0x0 0x7ffef9ac4a08 0x7f0742728503\n");
  REQUIRE(sc);
  CHECK(sc->nr == 230);
  CHECK(sc->sp == 0x7ffef9ac4a08);
  CHECK(sc->pc == 0x7f0742728503);
  auto outside = parse_task_syscall("-1 0x7ffc00001000 0x401000\n");
  REQUIRE(outside);
  CHECK(outside->nr == -1);
  CHECK(outside->pc == 0x401000);
  CHECK_FALSE(parse_task_syscall("running\n"));
  CHECK_FALSE(parse_task_syscall(""));
  CHECK_FALSE(parse_task_syscall("230 0x0 0x0"));
  CHECK_FALSE(parse_task_syscall("x 0x1 0x2"));
  CHECK_FALSE(parse_task_syscall("230 0x0 0x0 0x0 0x0 0x0 0x0 0xzz 0x1"));
}

TEST_CASE("kernel stack lines become symbol and offset, resolved through kallsyms", "[blocked_threads]") {
  const auto frames = parse_task_stack(
      "[<0>] do_nanosleep+0x5e/0x140\n"
      "garbage\n"
      "[<0>] hrtimer_nanosleep+0x74/0xf0\n");
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].symbol == "do_nanosleep");
  CHECK(frames[0].offset == 0x5e);
  CHECK(frames[1].symbol == "hrtimer_nanosleep");
  const std::string kallsyms =
      "ffffffff81000000 T _stext\n"
      "ffffffff8141fc60 T hrtimer_nanosleep\n"
      "ffffffff822003e0 t do_nanosleep\n"
      "ffffffffc0001000 t do_nanosleep\t[some_module]\n";
  const std::unordered_set<std::string> names = {"do_nanosleep", "hrtimer_nanosleep"};
  const auto resolve = [&](std::string_view text) {
    return resolve_kernel_frames(frames, kernel_symbol_addresses(text, names));
  };
  CHECK(resolve(kallsyms) == std::vector<uint64_t>{0xffffffff8220043eull, 0xffffffff8141fcd4ull});
  // Hidden addresses (kptr_restrict) or a missing symbol: no chain rather than a wrong one.
  CHECK(resolve("0000000000000000 t do_nanosleep\n0000000000000000 T hrtimer_nanosleep\n").empty());
  CHECK(resolve("ffffffff822003e0 t do_nanosleep\n").empty());
}

TEST_CASE("a blocked thread becomes an off-CPU sample and a synthesized switch-out", "[blocked_threads]") {
  BlockedThread t;
  t.pid = 10;
  t.tid = 11;
  t.time = 5000;
  t.syscall = {7, 0x7ffc1000, 0x401234};
  t.stack = {1, 2, 3, 4, 5, 6, 7, 8};
  const uint64_t k = 0xffffffff81000123ull;
  t.kernel_chain.resize(8);
  std::memcpy(t.kernel_chain.data(), &k, 8);
  const SampleView s = t.sample();
  CHECK(s.off_cpu);
  CHECK(s.time == 5000);
  CHECK(s.tid == 11);
  CHECK(s.period == 0);
  CHECK(s.regs[kRegIp] == 0x401234);
  CHECK(s.regs[kRegSp] == 0x7ffc1000);
  CHECK(s.ip_sp_only);  // the other registers are unknown, not zero
  CHECK(s.nregs == 20);
  CHECK(s.stack.size() == 8);
  REQUIRE(s.kernel_depth() == 1);
  CHECK(s.kernel_ip(0) == k);
  const SwitchRecord sw = t.switch_out();
  CHECK(sw.out);
  CHECK(sw.synthesized);
  CHECK_FALSE(sw.preempted);
  CHECK(sw.time == 5000);
  CHECK(sw.tid == 11);
}

TEST_CASE("find_blocked_threads sees a thread of this process blocked in read", "[blocked_threads]") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t child = fork();
  if (child == 0) {
    char c;
    close(fds[1]);
    (void)!read(fds[0], &c, 1);
    _exit(0);
  }
  close(fds[0]);
  std::vector<BlockedThread> blocked;
  for (int i = 0; i < 200 && blocked.empty(); ++i) {
    usleep(10000);
    blocked = find_blocked_threads(child, {.stack_size = 4096});
  }
  close(fds[1]);
  int status = 0;
  waitpid(child, &status, 0);
  REQUIRE(blocked.size() == 1);
  CHECK(blocked[0].tid == static_cast<uint32_t>(child));
  CHECK(blocked[0].syscall.nr == 0);  // read
  CHECK(!blocked[0].stack.empty());
  CHECK(blocked[0].stack.size() <= 4096);
}

TEST_CASE("find_blocked_threads reads kallsyms once for all the threads it finds", "[blocked_threads]") {
  TempDir dir;
  RunningProgram target({known_sleepers(), "40"}, dir.path());
  REQUIRE(target.wait_threads(41, "S"));
  int reads = 0;
  BlockedThreadSearch search;
  search.read_kallsyms = [&] {
    ++reads;
    return BlockedThreadSearch::read_proc_kallsyms();
  };
  const std::vector<BlockedThread> blocked = find_blocked_threads(target.pid(), search);
  REQUIRE(blocked.size() == 41);
  size_t with_kernel_chain = 0;
  for (const BlockedThread& t : blocked) with_kernel_chain += !t.kernel_chain.empty();
  // /proc/PID/task/TID/stack is root's: without it there is nothing to resolve.
  CHECK(reads == (geteuid() == 0 ? 1 : 0));
  if (geteuid() == 0) CHECK(with_kernel_chain == 41);
}

TEST_CASE("find_blocked_threads ends when a stop is requested, with the threads found so far", "[blocked_threads]") {
  TempDir dir;
  RunningProgram target({known_sleepers(), "20"}, dir.path());
  REQUIRE(target.wait_threads(21, "S"));
  int asked = 0;
  BlockedThreadSearch search;
  search.stop_requested = [&] { return ++asked > 5; };
  CHECK(find_blocked_threads(target.pid(), search).size() == 5);
  CHECK(asked == 6);
}

TEST_CASE("find_blocked_threads sees a thread stopped outside a system call", "[blocked_threads]") {
  TempDir dir;
  RunningProgram target({known_sleepers(), "1", "spin"}, dir.path());
  REQUIRE(kill(target.pid(), SIGSTOP) == 0);
  REQUIRE(target.wait_threads(2, "T"));
  const std::vector<BlockedThread> blocked = find_blocked_threads(target.pid());
  REQUIRE(blocked.size() == 2);
  const BlockedThread& main = blocked[0].tid == static_cast<uint32_t>(target.pid()) ? blocked[0] : blocked[1];
  CHECK(main.tid == static_cast<uint32_t>(target.pid()));
  CHECK(main.syscall.nr == -1);  // it was spinning in user code
  CHECK(main.syscall.pc != 0);
  CHECK(!main.stack.empty());
}
