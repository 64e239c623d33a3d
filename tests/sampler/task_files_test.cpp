#include "sampler/task_files.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "sampler/remote_memory.h"

using namespace swprof;

namespace {

// A child blocked in read() on a pipe nobody writes to; killed and reaped
// when the test ends, however it ends.
class BlockedChild {
 public:
  BlockedChild() {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    pid_ = fork();
    if (pid_ == 0) {
      close(fds[1]);
      char c;
      _exit(read(fds[0], &c, 1) == 1 ? 7 : 1);
    }
    close(fds[0]);
    write_end_ = fds[1];
  }
  ~BlockedChild() {
    if (write_end_ >= 0) close(write_end_);
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }
  // Waits until the child sleeps in the kernel.
  void wait_blocked() const {
    for (int i = 0; i < 500; ++i) {
      auto stat = read_task_stat(pid_, pid_);
      auto sc = read_task_syscall(pid_, pid_);
      if (stat && stat->state == 'S' && sc && sc->nr == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL("the child did not block in read()");
  }

 private:
  pid_t pid_ = -1;
  int write_end_ = -1;
};

}  // namespace

TEST_CASE("the stat line's state and flags, whatever the name holds", "[task_files]") {
  auto stat = parse_task_stat("2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0");
  REQUIRE(stat);
  CHECK(stat->state == 'S');
  CHECK((stat->flags & kPfKthread) != 0);
  auto odd = parse_task_stat("42 (a) R (b) t 1 42 42 0 -1 4194560 0");
  REQUIRE(odd);
  CHECK(odd->state == 't');
  CHECK((odd->flags & kPfKthread) == 0);
  CHECK_FALSE(parse_task_stat("42 (a"));
  CHECK_FALSE(parse_task_stat("42 (a) S 1 2"));
  CHECK(std::string(task_state_name('S')) == "sleeping");
  CHECK(std::string(task_state_name('R')) == "running");
}

TEST_CASE("a child blocked in read: its syscall line, kernel stack and stack memory, without stopping it",
          "[task_files][integration]") {
  BlockedChild child;
  child.wait_blocked();
  auto sc = read_task_syscall(child.pid(), child.pid());
  REQUIRE(sc);
  CHECK(sc->nr == 0);  // read
  CHECK(sc->sp != 0);
  CHECK(sc->pc != 0);
  auto stack = read_remote_memory(child.pid(), sc->sp, 256);
  CHECK(stack.size() == 256);
  if (auto kernel = read_task_kernel_stack(child.pid(), child.pid()); kernel && !kernel->empty()) {
    bool pipe_read = false;
    for (const auto& f : *kernel) pipe_read |= f.find("pipe_read") != std::string::npos;
    CHECK(pipe_read);
  }
  CHECK(read_task_wchan(child.pid(), child.pid()).find("pipe_read") != std::string::npos);
  CHECK(read_task_stat(child.pid(), child.pid())->state == 'S');  // still asleep: nothing stopped it
}
