// A program with a known stack for the mount-namespace tests
// (tests/cli/namespace_test.cpp), run from a tmpfs that only its own mount
// namespace sees:  main -> outer_call -> inside_only  (a busy loop).
//
//   known_namespace SECONDS        spin for SECONDS of wall time, then exit
//   known_namespace forever        spin until killed
//   known_namespace SECONDS jit    also run generated code, jitted_spin, in an
//                                  anonymous mapping, named in
//                                  /tmp/perf-<getpid()>.map (perf's JIT interface)
//   known_namespace SECONDS sparse-jit   the same, and the map keeps growing:
//                                  about every 20 ms a hole of 16 MiB (a
//                                  sparse file: no disk used) and one more line
// Prints "ready" once running.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

NOINLINE void inside_only(double seconds) {
  const double end = now_s() + seconds;
  while (now_s() < end)
    for (int i = 0; i < 10000; ++i) sink += (uint64_t)i;
}

NOINLINE void outer_call(double seconds) { inside_only(seconds); }

typedef void (*jitted_fn)(void);

// mov rcx, 20000000; 1: dec rcx; jnz 1b; ret
static const unsigned char kSpinCode[] = {0x48, 0xc7, 0xc1, 0x00, 0x2d, 0x31, 0x01,
                                          0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3};

static char map_path[64];

static jitted_fn make_jitted_spin(void) {
  void* code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  memcpy(code, kSpinCode, sizeof kSpinCode);
  snprintf(map_path, sizeof map_path, "/tmp/perf-%d.map", (int)getpid());
  FILE* map = fopen(map_path, "w");
  if (!map) {
    perror(map_path);
    exit(1);
  }
  fprintf(map, "%lx %zx jitted_spin\n", (unsigned long)(uintptr_t)code, sizeof kSpinCode);
  fclose(map);
  return (jitted_fn)code;
}

NOINLINE void run_jitted(jitted_fn f) { f(); }

// Appends a hole of 16 MiB and one line to the perf map.
static void grow_map(int fd) {
  static const char kLine[] = "7f0000000000 10 grown\n";
  const off_t size = lseek(fd, 0, SEEK_END);
  if (size < 0 || pwrite(fd, kLine, sizeof kLine - 1, size + (16 << 20)) != (ssize_t)sizeof kLine - 1) {
    perror(map_path);
    exit(1);
  }
}

int main(int argc, char** argv) {
  const int forever = argc > 1 && strcmp(argv[1], "forever") == 0;
  const double seconds = argc > 1 && !forever ? atof(argv[1]) : 1.0;
  const int sparse = argc > 2 && strcmp(argv[2], "sparse-jit") == 0;
  jitted_fn jitted = argc > 2 && (sparse || strcmp(argv[2], "jit") == 0) ? make_jitted_spin() : NULL;
  printf("ready\n");
  fflush(stdout);
  const double end = now_s() + seconds;
  const int grown = sparse ? open(map_path, O_WRONLY | O_CLOEXEC) : -1;
  if (sparse && grown < 0) {
    perror(map_path);
    exit(1);
  }
  do {
    outer_call(sparse ? 0.01 : 0.05);
    if (jitted) run_jitted(jitted);
    if (sparse) grow_map(grown);
  } while (forever || now_s() < end);
  return 0;
}
