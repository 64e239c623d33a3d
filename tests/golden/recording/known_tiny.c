// The program of the stored recording (known_tiny.swprof): no libc, so its
// stacks are the same on any machine. _start -> run, which calls, 40 times,
// compute (-> hot, twice the work of warm, and warm) and then cold (a tenth
// of hot's work). Recipe: README.md.

#define UNIT 2000000UL

static volatile unsigned long sink;

__attribute__((noinline)) void spin(unsigned long n) {
  for (unsigned long i = 0; i < n; i++) sink += i;
}

__attribute__((noinline)) void hot(void) { spin(10 * UNIT); }
__attribute__((noinline)) void warm(void) { spin(5 * UNIT); }
__attribute__((noinline)) void cold(void) { spin(1 * UNIT); }

__attribute__((noinline)) void compute(void) {
  hot();
  warm();
}

__attribute__((noinline, used)) void run(void) {
  for (int i = 0; i < 40; i++) {
    compute();
    cold();
  }
}

// The kernel enters here with rsp 16-byte aligned; the CFI marks the
// outermost frame (return address undefined).
__asm__(
    ".globl _start\n"
    ".type _start, @function\n"
    "_start:\n"
    ".cfi_startproc\n"
    ".cfi_undefined rip\n"
    "  xor %ebp, %ebp\n"
    "  call run\n"
    "  mov $60, %eax\n"
    "  xor %edi, %edi\n"
    "  syscall\n"
    "  hlt\n"
    ".cfi_endproc\n"
    ".size _start, . - _start\n");
