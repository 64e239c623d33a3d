/* A static program without unwind tables or frame pointers for its own code,
 * for unwinding stripped code (see CMakeLists.txt: built -Os -static with
 * -fno-asynchronous-unwind-tables -fno-unwind-tables -fomit-frame-pointer,
 * then stripped into known_static.stripped). Static glibc keeps its own
 * .eh_frame, so the program's functions are found by discovery and unwound
 * by analysis, glibc's by CFI. Every function is noinline and works after
 * its call, so no call becomes a tail call.
 *
 *   known_static leaf SECONDS     main -> a -> b -> c -> leaf (spins)
 *   known_static recurse SECONDS  main -> a -> b -> c -> recurse (x 20) -> leaf
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

volatile unsigned long sink;
static const char* mode = "leaf";

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

NOINLINE void leaf(double s) {
  const double end = cpu_now() + s;
  do {
    for (int i = 0; i < 200000; ++i) sink += (unsigned long)i * 2654435761u;
  } while (cpu_now() < end);
  sink++;
}

NOINLINE void recurse(int depth, double s) {
  volatile char pad[64];
  pad[0] = (char)depth;
  if (depth > 0) recurse(depth - 1, s);
  else leaf(s);
  sink += (unsigned long)pad[0];
}

NOINLINE void c(double s) {
  if (!strcmp(mode, "recurse")) recurse(20, s);
  else leaf(s);
  sink++;
}

NOINLINE void b(double s) {
  c(s);
  sink++;
}

NOINLINE void a(double s) {
  b(s);
  sink++;
}

int main(int argc, char** argv) {
  if (argc > 1) mode = argv[1];
  a(argc > 2 ? atof(argv[2]) : 0.01);
  printf("%lu\n", sink);
  return 0;
}
