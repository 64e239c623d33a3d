/* A benchmark for the `swprof diff` tests. Every function does a fixed amount
 * of work (not a fixed time), so shares of samples depend on the code alone
 * and a knob changes exactly one function's work:
 *
 *   diff_target bench [SCALE] [--double-hot]
 *       20 rounds of, in units of work:
 *         main -> parse_input                  4
 *         main -> compute -> hot_loop          3  (6 with --double-hot)
 *         main -> compute -> steady_loop       1
 *         main -> write_output                 2
 *       Shares without the knob: parse_input 40%, compute 40% (hot_loop 30%,
 *       steady_loop 10%), write_output 20%; with it: hot_loop 46%, compute 54%.
 *   diff_target paths [SCALE]
 *       main -> step_a -> step_b -> step_c -> spin   and
 *       main -> step_b -> step_c -> step_a -> spin   (same functions, two paths)
 *
 * SCALE (default 1) multiplies the work; a unit is a few ms of CPU time, so
 * a bench run takes about half a second of CPU time.
 * The build also makes shifted/diff_target from this file with one line
 * added at ADDED-LINE below (tests/programs/CMakeLists.txt): same names,
 * other line numbers and addresses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

volatile unsigned long sink;
static long unit = 2000000;  /* iterations per unit of work, times SCALE */

/* A macro, not a function, so the samples land in the function that works. */
#define WORK(units)                                                                          \
  do {                                                                                       \
    unsigned long x_ = sink;                                                                 \
    for (long i_ = 0; i_ < (units) * unit; ++i_) x_ = x_ * 6364136223846793005ul + 1442695040888963407ul; \
    sink = x_;                                                                               \
  } while (0)

NOINLINE void parse_input(void) {
  WORK(4);
  sink++;
}

/* ADDED-LINE */
NOINLINE void hot_loop(int doubled) {
  WORK(doubled ? 6 : 3);
  sink++;
}

NOINLINE void steady_loop(void) {
  WORK(1);
  sink++;
}

NOINLINE void compute(int doubled) {
  hot_loop(doubled);
  steady_loop();
  sink++;
}

NOINLINE void write_output(void) {
  WORK(2);
  sink++;
}

typedef void (*step_fn)(const char* rest);
NOINLINE void step_a(const char* rest);
NOINLINE void step_b(const char* rest);
NOINLINE void step_c(const char* rest);
static step_fn const steps[3] = {step_a, step_b, step_c};

NOINLINE void spin(void) {
  WORK(2);
  sink++;
}

/* Calls the step named by rest[0] with the rest of the path, or spins at its
 * end. A macro, so no inlined function shows in the stacks. */
#define NEXT_STEP(rest)                      \
  do {                                       \
    if (*(rest)) steps[*(rest) - 'a']((rest) + 1); \
    else spin();                             \
  } while (0)

NOINLINE void step_a(const char* rest) {
  NEXT_STEP(rest);
  sink++;
}

NOINLINE void step_b(const char* rest) {
  NEXT_STEP(rest);
  sink++;
}

NOINLINE void step_c(const char* rest) {
  NEXT_STEP(rest);
  sink++;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "bench";
  int doubled = 0;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--double-hot")) doubled = 1;
    else unit = (long)(atof(argv[i]) * (double)unit);
  }
  if (!strcmp(mode, "bench")) {
    for (int round = 0; round < 20; ++round) {
      parse_input();
      compute(doubled);
      write_output();
    }
  } else if (!strcmp(mode, "paths")) {
    for (int round = 0; round < 20; ++round) {
      NEXT_STEP("abc");
      NEXT_STEP("bca");
    }
  } else {
    fprintf(stderr, "usage: diff_target bench|paths [SCALE] [--double-hot]\n");
    return 2;
  }
  return 0;
}
