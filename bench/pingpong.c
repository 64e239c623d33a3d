// Context-switch-heavy workload for bench/offcpu_compare.sh: two threads pass
// one byte back and forth over two pipes N times, so each round trip blocks
// each thread once (about 2 N switch-outs in all).
//
//   cc -O2 -g -pthread -o pingpong bench/pingpong.c && ./pingpong 50000
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int to_other[2], to_main[2];
static long rounds;

static void* other(void* arg) {
  (void)arg;
  char c;
  for (long i = 0; i < rounds; i++) {
    if (read(to_other[0], &c, 1) != 1 || write(to_main[1], &c, 1) != 1) break;
  }
  return NULL;
}

int main(int argc, char** argv) {
  rounds = argc > 1 ? atol(argv[1]) : 50000;
  if (rounds <= 0 || pipe(to_other) != 0 || pipe(to_main) != 0) return 2;
  pthread_t t;
  if (pthread_create(&t, NULL, other, NULL) != 0) return 2;
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  char c = 'x';
  for (long i = 0; i < rounds; i++) {
    if (write(to_other[1], &c, 1) != 1 || read(to_main[0], &c, 1) != 1) return 1;
  }
  pthread_join(t, NULL);
  clock_gettime(CLOCK_MONOTONIC, &end);
  double s = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
  fprintf(stderr, "pingpong: %ld round trips in %.3f s (%.0f switches/s)\n", rounds, s, 2.0 * (double)rounds / s);
  return 0;
}
