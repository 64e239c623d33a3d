// Known stacks through hand-written assembly without CFI (known_asm.asm):
// compiled C with CFI and without frame pointers calls each asm function
// directly or through a table of pointers filled at run time (`lea` of the
// address, as x264's and FFmpeg's DSP init functions do). main -> a -> b ->
// the asm shapes, over and over for the given seconds:
//   asm_leaf                          (table; never touches rsp)
//   asm_push_sub -> asm_helper        (direct call; push/sub, helper by call)
//   asm_align_reg                     (table; realigned, old rsp in r11)
//   asm_align_stack -> asm_deep_helper (direct call; realigned, old rsp on the stack)
//   asm_tail => asm_tail_target       (table; tail jump, asm_tail not on the stack)
// Usage: known_asm SECONDS (of CPU time)
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

typedef void (*AsmFn)(long);
void asm_leaf(long n);
void asm_push_sub(long n);
void asm_align_reg(long n);
void asm_align_stack(long n);
void asm_tail(long n);

static AsmFn volatile table[3];

NOINLINE void init_table(void) {
  table[0] = asm_leaf;
  table[1] = asm_align_reg;
  table[2] = asm_tail;
}

NOINLINE void b(long n) {
  table[0](n);
  asm_push_sub(n);
  table[1](n);
  asm_align_stack(n);
  table[2](n);
}

NOINLINE void a(long n) { b(n); }

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);  // CPU time: as many samples on a loaded machine
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  init_table();
  const double end = now() + seconds;
  while (now() < end) a(20000);
  return 0;
}
