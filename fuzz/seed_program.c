/* The program whose unwind info and ELF image seed the cfi and elf targets
 * (fuzz/make_corpus.sh builds it without libc, so the binary stays small).
 * Its functions give the CFI shapes compilers emit: a leaf, a frame-pointer
 * frame, callee-saved registers pushed, and a variable-size frame. */

#include <stddef.h>

__attribute__((noinline)) static long leaf(long x) { return x * 3 + 1; }

__attribute__((noinline)) static long saves_registers(long a, long b, long c) {
  long r = 0;
  for (long i = 0; i < a; ++i) r += leaf(i ^ b) + leaf(c + r);
  return r;
}

__attribute__((noinline)) static long dynamic_frame(size_t n) {
  volatile char* buf = __builtin_alloca(n + 16);
  buf[n] = 1;
  return saves_registers((long)n, buf[n], 7);
}

void _start(void) {
  long status = dynamic_frame(40) & 0x7f;
  __asm__ volatile("mov $60, %%eax\n\tsyscall" : : "D"(status) : "rax", "rcx", "r11", "memory");
  __builtin_unreachable();
}
