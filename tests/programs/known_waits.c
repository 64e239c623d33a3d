/* Known off-CPU shares for the --off-cpu / --wall tests (built -O1 -g, see
 * CMakeLists.txt). One worker thread loops
 *
 *   nap()        nanosleep 4 ms                    -> off-CPU in do_nanosleep
 *   wait_pipe()  read() on a pipe whose writer     -> off-CPU in pipe_read
 *                sleeps 3 ms after the reader enters
 *   spin()       3 ms busy on CLOCK_MONOTONIC      -> on-CPU
 *
 * so per iteration the truth is 4/3/3 ms of its wall time (40/30/30 %). The
 * writer (feeder) waits on an eventfd the reader signals just before read();
 * without that handshake the write happens during nap() and read() never blocks.
 *
 *   known_waits [ITERATIONS]   (default 100, about 1 s)
 * prints "ready" when the worker starts, and at the end
 * "known_waits: N iterations in S s".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static int pipe_fds[2];
static int go_fd;
volatile unsigned long sink;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void sleep_ms(long ms) {
  struct timespec t = {0, ms * 1000000L};
  while (nanosleep(&t, &t) != 0) {
  }
}

NOINLINE void nap(void) {
  sleep_ms(4);
  sink++;
}

NOINLINE void wait_pipe(void) {
  unsigned long long one = 1;
  char c;
  if (write(go_fd, &one, sizeof one) != sizeof one) abort();
  if (read(pipe_fds[0], &c, 1) != 1) abort();
  sink++;
}

NOINLINE void spin(void) {
  const double end = now() + 0.003;
  while (now() < end) sink++;
}

static void* feeder(void* arg) {
  (void)arg;
  for (;;) {
    unsigned long long v;
    if (read(go_fd, &v, sizeof v) != sizeof v) return NULL;
    sleep_ms(3);
    if (write(pipe_fds[1], "x", 1) != 1) return NULL;
  }
}

static void* worker(void* arg) {
  const int n = *(const int*)arg;
  printf("ready\n");
  fflush(stdout);
  for (int i = 0; i < n; i++) {
    nap();
    wait_pipe();
    spin();
  }
  return NULL;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  if (n < 1) n = 1;
  if (pipe(pipe_fds) != 0) return 1;
  go_fd = eventfd(0, 0);
  if (go_fd < 0) return 1;
  pthread_t feed, work;
  pthread_create(&feed, NULL, feeder, NULL);
  const double start = now();
  pthread_create(&work, NULL, worker, &n);
  pthread_join(work, NULL);
  printf("known_waits: %d iterations in %.3f s\n", n, now() - start);
  return 0;
}
