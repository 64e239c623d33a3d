/* A function with a 30,000-character name, for the name filters
 * (--include, --exclude, diff --only): a generated template instance can
 * have a name this long.
 *
 *   long_name
 *       main -> aaaa...a_foo (30,000 'a's, then "_foo")   about 0.2 s of CPU
 *       main -> spin_other                                about 0.2 s of CPU
 *
 * Built without DWARF (-g0), so the symbol table's name is the one shown. */

#define NOINLINE __attribute__((noinline))

#define A10 "aaaaaaaaaa"
#define A100 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10
#define A1000 A100 A100 A100 A100 A100 A100 A100 A100 A100 A100
#define A10000 A1000 A1000 A1000 A1000 A1000 A1000 A1000 A1000 A1000 A1000

volatile unsigned long sink;

static void work(long iterations) {
  unsigned long x = sink;
  for (long i = 0; i < iterations; ++i) x = x * 6364136223846793005ul + 1442695040888963407ul;
  sink = x;
}

NOINLINE void long_function(void) __asm__(A10000 A10000 A10000 "_foo");
NOINLINE void long_function(void) { work(150000000); }

NOINLINE void spin_other(void) { work(150000000); }

int main(void) {
  long_function();
  spin_other();
  return 0;
}
