/* Threads off the CPU for as long as the process lives, for attach --off-cpu
 * (tests/cli/offcpu_record_test.cpp, tests/sampler/blocked_threads_test.cpp).
 *
 *   known_sleepers N [spin]
 *
 * starts N threads that sleep in nanosleep (an hour at a time) and prints
 * "ready" once every one has started. The main thread then waits in pause(),
 * or with "spin" loops in user code, so that SIGSTOP stops it outside a
 * system call. It ends only when killed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile unsigned long sink;

NOINLINE static void sleep_long(void) {
  struct timespec t = {3600, 0};
  for (;;) nanosleep(&t, NULL);
}

static void* sleeper(void* arg) {
  (void)arg;
  sleep_long();
  return NULL;
}

NOINLINE static void spin_forever(void) {
  for (;;) sink++;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1;
  const int spin = argc > 2 && strcmp(argv[2], "spin") == 0;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);  /* hundreds of threads, little memory */
  for (int i = 0; i < n; ++i) {
    pthread_t t;
    if (pthread_create(&t, &attr, sleeper, NULL) != 0) {
      perror("pthread_create");
      return 1;
    }
  }
  printf("ready\n");
  fflush(stdout);
  if (spin) spin_forever();
  for (;;) pause();
}
