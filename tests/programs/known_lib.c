/* libknownlib.so: called from known_stack through the PLT. With
 * KNOWN_LIB_INIT_SECONDS=S in the environment, its constructor first spins
 * S seconds of CPU time before main runs: the dynamic loader's entry code
 * -> _dl_init -> ... -> lib_init -> lib_work -> lib_leaf. */
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

extern volatile unsigned long sink;

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

NOINLINE void lib_leaf(double s) {
  const double end = cpu_now() + s;
  do {
    for (int i = 0; i < 200000; ++i) sink += (unsigned long)i * 2246822519u;
  } while (cpu_now() < end);
  sink++;
}

NOINLINE void lib_work(double s) {
  lib_leaf(s);
  sink++;
}

__attribute__((constructor)) NOINLINE void lib_init(void) {
  const char* s = getenv("KNOWN_LIB_INIT_SECONDS");
  if (s) lib_work(atof(s));
  sink++;
}
