/* A recursion thousands of frames deep, for unwinding tests of stacks far
 * deeper than any walk bound of old (256 frames) and than the kernel's
 * stack copy (65,528 bytes at most):
 *
 *   known_deep_recursion DEPTH SECONDS [LINGER]   main -> descend (x DEPTH + 1) -> leaf (spins)
 *
 * LINGER: seconds leaf then sleeps, its stack still there, so that a
 * recorder behind with its samples can still read the live stack.
 *
 * descend's frame is 80 bytes (a 64-byte buffer, a saved register, the
 * return address; 96 with rbp pushed too), so 2,500 levels take about 200
 * KB of stack. Every function is
 * noinline and works after its call: no call becomes a tail call. Built
 * without frame pointers (CFI only) and with them (_fp).
 */
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

volatile unsigned long sink;

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double linger;

NOINLINE void leaf(double s) {
  const double end = cpu_now() + s;
  do {
    for (int i = 0; i < 200000; ++i) sink += (unsigned long)i * 2654435761u;
  } while (cpu_now() < end);
  sink++;
  if (linger > 0) {
    struct timespec ts = {(time_t)linger, (long)((linger - (double)(time_t)linger) * 1e9)};
    nanosleep(&ts, NULL);
  }
}

NOINLINE int descend(int depth, double s) {
  volatile char pad[64];
  pad[depth & 63] = (char)depth;
  if (depth > 0) descend(depth - 1, s);
  else leaf(s);
  return pad[depth & 63];
}

int main(int argc, char** argv) {
  const int depth = argc > 1 ? atoi(argv[1]) : 2500;
  const double seconds = argc > 2 ? atof(argv[2]) : 1.0;
  linger = argc > 3 ? atof(argv[3]) : 0.0;
  descend(depth, seconds);
  return 0;
}
