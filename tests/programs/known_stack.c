/* A program whose stacks are known, for unwinding tests. Every function is
 * noinline and does work after its call, so no call becomes a tail call and
 * every frame is really there. Built with several flag sets (see
 * CMakeLists.txt): -O0/-O2, with/without frame pointers, with/without unwind
 * tables.
 *
 *   known_stack leaf SECONDS     main -> a -> b -> c -> leaf (spins)
 *   known_stack plt SECONDS      main -> a -> b -> c -> lib_work -> lib_leaf (libknownlib.so, via the PLT)
 *   known_stack vdso SECONDS     main -> a -> b -> c -> vdso_leaf -> clock_gettime (vDSO)
 *   known_stack signal SECONDS   main -> a -> b -> c -> c_spin, interrupted by SIGPROF
 *                                -> on_signal -> handler_leaf (spins in the handler)
 *   known_stack threads SECONDS  4 x thread_main -> a -> b -> c -> leaf
 *   known_stack recurse SECONDS  main -> a -> recurse (x 150, 256-byte frames) -> leaf
 *   known_stack deep SECONDS     main -> a -> deep (x 150, 1 KiB frames: ~160 KB of stack) -> leaf
 *   known_stack deepthreads SECONDS
 *                                2 x thread_main -> a -> deep (x 150) -> leaf
 *   known_stack epilogue SECONDS main -> a -> b -> c -> call_tiny -> tiny, where most samples
 *                                fall in tiny's epilogue, after `pop %rbp`
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

volatile unsigned long sink;
static const char* mode = "leaf";
static double seconds = 1.0;

void lib_work(double seconds);  /* libknownlib.so */

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

NOINLINE void leaf(double s) {
  const double end = cpu_now() + s;
  do {
    for (int i = 0; i < 200000; ++i) sink += (unsigned long)i * 2654435761u;
  } while (cpu_now() < end);
  sink++;
}

NOINLINE void vdso_leaf(double s) {
  const double end = cpu_now() + s;
  struct timespec ts;
  while (cpu_now() < end)
    for (int i = 0; i < 1000; ++i) {
      clock_gettime(CLOCK_MONOTONIC, &ts);
      sink += (unsigned long)ts.tv_nsec;
    }
  sink++;
}

NOINLINE void handler_leaf(void) {
  const double end = cpu_now() + 0.008;  /* 8 ms of every 20 ms in the handler */
  do {
    for (int i = 0; i < 100000; ++i) sink += (unsigned long)i * 40503u;
  } while (cpu_now() < end);
  sink++;
}

/* tiny(x) = x + 1 with a frame-pointer frame, as gcc -O0 builds one, and
 * its CFI: after `pop %rbp` the CFI still says rbp is saved at CFA-16 (below
 * rsp). The pauses after the pop make the epilogue where samples fall. */
unsigned long tiny(unsigned long x);
__asm__(".text\n"
        ".globl tiny\n"
        ".type tiny, @function\n"
        "tiny:\n"
        ".cfi_startproc\n"
        "push %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "mov %rsp, %rbp\n"
        ".cfi_def_cfa_register %rbp\n"
        "lea 1(%rdi), %rax\n"
        "pop %rbp\n"
        ".cfi_def_cfa %rsp, 8\n"
        "pause\n"
        "pause\n"
        "pause\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size tiny, .-tiny\n");

/* A frame of run-time size: the CFA is rbp-based at every -O level, and no
 * stack-height analysis can stand in for the rbp the CFI cannot give. */
NOINLINE void call_tiny(double s) {
  volatile char frame[16 + (sink & 16)];
  frame[0] = 1;
  const double end = cpu_now() + s;
  unsigned long x = 0;
  do {
    for (int i = 0; i < 100000; ++i) x = tiny(x);
  } while (cpu_now() < end);
  sink += x + (unsigned long)frame[0];
}

NOINLINE void on_signal(int sig) {
  (void)sig;
  handler_leaf();
  sink++;
}

NOINLINE void c_spin(double s) {
  const double end = cpu_now() + s;
  do {
    for (int i = 0; i < 100000; ++i) sink += (unsigned long)i;
  } while (cpu_now() < end);
  sink++;
}

NOINLINE void c(double s) {
  if (!strcmp(mode, "plt")) lib_work(s);
  else if (!strcmp(mode, "vdso")) vdso_leaf(s);
  else if (!strcmp(mode, "signal")) c_spin(s);
  else if (!strcmp(mode, "epilogue")) call_tiny(s);
  else leaf(s);
  sink++;
}

NOINLINE void b(double s) {
  c(s);
  sink++;
}

/* Done spinning at the bottom of a stack deeper than the copy: 2 s asleep
 * there, so that a recorder behind with its samples (a sanitizer build on a
 * loaded machine) still finds the stack to read past the copy. */
static void linger_at_the_bottom(void) {
  const struct timespec linger = {2, 0};
  nanosleep(&linger, NULL);
}

NOINLINE int recurse(int depth, double s) {
  volatile char frame[256];
  frame[0] = (char)depth;
  if (depth > 0) {
    recurse(depth - 1, s);
  } else {
    leaf(s);
    linger_at_the_bottom();
  }
  sink += (unsigned long)frame[0];
  return frame[0];
}

/* Deeper than the kernel can copy (65528 bytes) in few frames. */
NOINLINE int deep(int depth, double s) {
  volatile char frame[1024];
  frame[0] = (char)depth;
  frame[1023] = (char)depth;
  if (depth > 0) {
    deep(depth - 1, s);
  } else {
    leaf(s);
    linger_at_the_bottom();
  }
  sink += (unsigned long)frame[0] + (unsigned long)frame[1023];
  return frame[0];
}

NOINLINE void a(double s) {
  if (!strcmp(mode, "recurse")) recurse(150, s);
  else if (!strcmp(mode, "deep") || !strcmp(mode, "deepthreads")) deep(150, s);
  else b(s);
  sink++;
}

static void* thread_main(void* arg) {
  (void)arg;
  a(seconds);
  sink++;
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) mode = argv[1];
  if (argc > 2) seconds = atof(argv[2]);
  if (!strcmp(mode, "signal")) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval it = {{0, 20000}, {0, 20000}};  /* every 20 ms of CPU time */
    setitimer(ITIMER_PROF, &it, NULL);
  }
  if (!strcmp(mode, "threads") || !strcmp(mode, "deepthreads")) {
    const int n = strcmp(mode, "threads") ? 2 : 4;
    pthread_t t[4];
    for (int i = 0; i < n; ++i) pthread_create(&t[i], NULL, thread_main, NULL);
    for (int i = 0; i < n; ++i) pthread_join(t[i], NULL);
  } else {
    a(seconds);
  }
  sink++;
  return 0;
}
