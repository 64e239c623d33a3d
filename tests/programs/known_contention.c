/* Lock contention with a known off-CPU stack (built -O1 -g, see
 * CMakeLists.txt): thread A (holder) holds a mutex 5 ms out of every 6 ms,
 * thread B (waiter) loops contended_lock(), so B spends most of its time off
 * the CPU under contended_lock -> pthread_mutex_lock -> futex wait.
 *
 * B does nothing else: between the holder's turns it takes the free lock
 * again and again on the CPU, so its off-CPU time is all in the lock.
 *
 *   known_contention [SECONDS]   (default 1)
 * prints "known_contention: N locks in S s".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int done;
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

NOINLINE void hold_lock(void) {
  pthread_mutex_lock(&lock);
  sleep_ms(5);
  pthread_mutex_unlock(&lock);
}

static void* holder(void* arg) {
  (void)arg;
  while (!done) {
    hold_lock();
    sleep_ms(1);
  }
  return NULL;
}

NOINLINE void contended_lock(void) {
  pthread_mutex_lock(&lock);
  sink++;
  pthread_mutex_unlock(&lock);
}

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  pthread_t a;
  pthread_create(&a, NULL, holder, NULL);
  sleep_ms(1);
  const double start = now();
  unsigned long n = 0;
  while (now() - start < seconds) {
    contended_lock();
    n++;
  }
  done = 1;
  pthread_join(a, NULL);
  printf("known_contention: %lu locks in %.3f s\n", n, now() - start);
  return 0;
}
