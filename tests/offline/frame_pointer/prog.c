// A program without libc whose stack is known: _start -> run -> middle ->
// leaf, leaf spinning. Built without unwind tables (no .eh_frame) and with
// frame pointers kept: the frame pointer stepper steps every frame but
// _start. Recipe: README.md.

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

// The kernel enters here with rsp 16-byte aligned; rbp = 0 ends the frame
// pointer chain.
__asm__(
    ".globl _start\n"
    ".type _start, @function\n"
    "_start:\n"
    "  xor %ebp, %ebp\n"
    "  call run\n"
    "  mov $60, %eax\n"
    "  xor %edi, %edi\n"
    "  syscall\n"
    "  hlt\n"
    ".size _start, . - _start\n");
