/* main -> spin (SECONDS of CPU), linked four ways with glibc and statically
 * with musl, and stripped (known_startup_{pie,nopie,static,static_pie,musl}
 * .stripped), for the names of start-up code in executables without symbols
 * (tests/binary/startup_functions_test.cpp, tests/cli/startup_names_test.cpp):
 * the unstripped twins say where _start, main, __libc_start_main and
 * __libc_start_call_main (glibc), _start_c and libc_start_main_stage2 (musl)
 * are.
 */
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

volatile unsigned long sink;

NOINLINE void spin(double s) {
  struct timespec ts;
  double now, end = -1;
  do {
    for (int i = 0; i < 200000; ++i) sink += (unsigned long)i * 2654435761u;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    if (end < 0) end = now + s;
  } while (now < end);
}

int main(int argc, char** argv) {
  spin(argc > 1 ? atof(argv[1]) : 1.0);
  sink++;
  return 0;
}
