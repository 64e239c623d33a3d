/* A hot loop inside an inlined function, for the pprof tests
 * (tests/cli/report_pprof_test.cpp): main -> spin_caller -> spin_inlined,
 * where spin_inlined is always inlined into spin_caller and nearly every
 * sample lands in its loop, so the hottest location of a profile has two
 * lines: spin_inlined at its loop, then spin_caller at its call. The
 * "@..." comments mark the lines the test expects; keep each on the line it
 * describes.
 *
 *   known_inline [SECONDS]   spins for that much CPU time (default 0.5)
 */
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline __attribute__((always_inline)) void spin_inlined(unsigned long n) {
  for (unsigned long i = 0; i < n; ++i) sink += i * 2654435761u; /* @spin-loop */
}

__attribute__((noinline, noipa)) void spin_caller(double seconds) {
  const double end = cpu_now() + seconds;
  do {
    spin_inlined(2000000); /* @spin-call */
  } while (cpu_now() < end);
  sink++;
}

int main(int argc, char** argv) {
  spin_caller(argc > 1 ? atof(argv[1]) : 0.5);
  return 0;
}
