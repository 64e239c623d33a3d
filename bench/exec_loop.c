// A workload for the execve measurements (bench/RESULTS.md): spins a little,
// then execs itself with N-1, until 0. Every exec replaces the address space
// of the same process.
//   cc -O2 -g -o exec_loop bench/exec_loop.c && swprof record -F 20000 -- ./exec_loop 300
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void spin(void) {
  for (unsigned long i = 0; i < 200000; ++i) sink += i;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 0;
  spin();
  if (n <= 0) return 0;
  char next[16];
  snprintf(next, sizeof next, "%d", n - 1);
  char* args[] = {argv[0], next, NULL};
  execv("/proc/self/exe", args);
  return 1;
}
