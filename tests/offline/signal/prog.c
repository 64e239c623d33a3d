// A program without libc whose stack is known: _start -> run -> raise_usr1,
// whose kill(2) delivers SIGUSR1 to the program itself; the handler's frames
// (handler -> leaf, leaf spinning) sit on a signal frame that returns into
// this program's own __restore_rt. Built with DWARF CFI, frame pointer
// omitted. Recipe: README.md.

#define SPINS 300000000UL
#define SIGUSR1 10
#define SA_SIGINFO 4
#define SA_RESTORER 0x04000000

struct kernel_sigaction {
  void (*handler)(int, void*, void*);
  unsigned long flags;
  void (*restorer)(void);
  unsigned long mask;
};

void __restore_rt(void);

static long syscall4(long nr, long a, long b, long c, long d) {
  long ret;
  register long r10 __asm__("r10") = d;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
  return ret;
}

__attribute__((noinline)) unsigned long leaf(unsigned long n) {
  volatile unsigned long x = 0;
  for (unsigned long i = 0; i < n; i++) x += i;
  return x;
}

__attribute__((noinline)) void handler(int sig, void* info, void* ucontext) {
  (void)info;
  (void)ucontext;
  leaf(SPINS + (unsigned long)sig);
}

__attribute__((noinline)) void raise_usr1(void) {
  const long pid = syscall4(39, 0, 0, 0, 0);  // getpid
  syscall4(62, pid, SIGUSR1, 0, 0);            // kill
}

__attribute__((noinline, used)) void run(void) {
  struct kernel_sigaction sa = {handler, SA_SIGINFO | SA_RESTORER, __restore_rt, 0};
  syscall4(13, SIGUSR1, (long)&sa, 0, sizeof sa.mask);  // rt_sigaction
  raise_usr1();
}

// The sigreturn trampoline, byte for byte as libc's: mov $15, %rax; syscall.
__asm__(
    "  nop\n"
    ".globl __restore_rt\n"
    ".type __restore_rt, @function\n"
    "__restore_rt:\n"
    "  mov $15, %rax\n"
    "  syscall\n"
    ".size __restore_rt, . - __restore_rt\n");

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
