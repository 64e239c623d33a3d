/* Symbolizer test program, C half (see sym_target.cpp): functions inlined
 * two deep into a real one, and a static function that only .symtab (or the
 * minidebuginfo) names. The "@..." comments mark the lines the symbolizer
 * tests expect; keep each on the line it describes. */
#include <stdint.h>

#define NOIPA __attribute__((noipa))
#define ALWAYS_INLINE static inline __attribute__((always_inline))

volatile uintptr_t sym_sink;
void sym_probe(const char* tag);

ALWAYS_INLINE void inner_step(int x) {
  sym_sink += (uintptr_t)x;
  sym_probe("inline"); /* @inner-calls-probe */
  sym_sink ^= 3;
}

ALWAYS_INLINE void outer_step(int x) {
  inner_step(x + 1); /* @outer-calls-inner */
  sym_sink += 7;
}

NOIPA void run_inline(int x) { /* @run-inline-decl */
  outer_step(x);               /* @run-calls-outer */
  sym_sink += 11;
}

static NOIPA void static_worker(int x) {
  sym_probe("static"); /* @static-calls-probe */
  sym_sink += (uintptr_t)x;
}

NOIPA void run_static(int x) {
  static_worker(x);
  sym_sink++;
}
