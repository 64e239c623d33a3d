/* Symbolizer test library: stripped of everything but .dynsym, only its
 * exported functions keep names. */
#include <stdint.h>

volatile uintptr_t sym_dynlib_sink;

__attribute__((noipa)) static void hidden_helper(int x) { sym_dynlib_sink += (uintptr_t)x * 3; }

__attribute__((noipa)) void sym_exported_entry(int x) {
  hidden_helper(x);
  sym_dynlib_sink ^= 5;
}

__attribute__((noipa)) int sym_exported_other(int x) { return x * 7 + (int)sym_dynlib_sink; }
