// fa and fb take turns: ROUNDS rounds of fa then fb, each a fixed amount of
// work (ITERATIONS loop steps; no clock, so the same on a busy machine).
// The speedscope tests check that its time-ordered samples alternate.
//   known_alternating [ROUNDS [ITERATIONS]]   (defaults 200, 6000000: about 1.5 ms)
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

NOINLINE void fa(unsigned long iterations) {
  for (unsigned long i = 0; i < iterations; ++i) sink += i;
}

NOINLINE void fb(unsigned long iterations) {
  for (unsigned long i = 0; i < iterations; ++i) sink ^= i;
}

int main(int argc, char** argv) {
  const unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
  const unsigned long iterations = argc > 2 ? strtoul(argv[2], NULL, 10) : 6000000;
  for (unsigned long r = 0; r < rounds; ++r) {
    fa(iterations);
    fb(iterations);
  }
  printf("%lu rounds\n", rounds);
  return 0;
}
