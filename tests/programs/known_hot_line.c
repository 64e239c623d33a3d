// A program whose time sits on one known source line, for the annotate and
// pprof tests (tests/cli/annotate_test.cpp): hash_buf's loop has a cheap
// line (an addition) and a hot line (a 64-bit division by a divisor only
// known at run time, each waiting for the one before: tens of cycles each).
// The tests find the lines by their @markers.
//
// No libc (like tests/golden/recording/known_tiny.c): a fixed amount of
// work, about half a second of CPU however loaded the machine is, and a
// position-independent executable that the kernel loads at a random base
// (-static-pie -nostdlib: no relocation to apply, no loader).

typedef unsigned long u64;

static volatile u64 sink;
static volatile u64 divisor = 3;
static u64 buf[256];

__attribute__((noinline)) u64 hash_buf(const u64* data, u64 n, u64 d) {  // @hash-buf-decl
  u64 h = 1;
  for (u64 i = 0; i < n; i++) {
    h += data[i];              // @cheap-line
    h = h / d * 7 + data[i];   // @hot-line
  }
  return h;
}

__attribute__((noinline, used)) void run(void) {
  for (u64 i = 0; i < 256; i++) buf[i] = i * 2654435761UL;
  const u64 d = divisor;
  for (int round = 0; round < 300000; round++) sink += hash_buf(buf, 256, d);
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
