// A program without libc whose stack is known: _start -> run -> middle ->
// leaf, leaf spinning. Built with DWARF CFI (.eh_frame), frame pointer
// omitted: only the CFI stepper can step leaf and middle. Recipe: README.md.

#define SPINS 300000000UL

__attribute__((noinline)) unsigned long leaf(unsigned long n) {
  volatile unsigned long x = 0;
  for (unsigned long i = 0; i < n; i++) x += i;
  return x;
}

__attribute__((noinline)) unsigned long middle(unsigned long n) {
  volatile unsigned long frame[4] = {n, 0, 0, 0};
  return leaf(frame[0]) + frame[1];
}

__attribute__((noinline, used)) void run(void) { middle(SPINS); }

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
