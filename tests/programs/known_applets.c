/* A static multi-call program like busybox, without unwind tables or frame
 * pointers for its own code (see CMakeLists.txt: built -O2 -fno-pie -static
 * with -fno-asynchronous-unwind-tables -fno-unwind-tables
 * -fomit-frame-pointer -fno-optimize-sibling-calls, then stripped into
 * known_applets.stripped). main finds argv[1] in a table of applets and
 * calls it through its function pointer: no code calls an applet directly,
 * so only the pointers in data name them. Each applet dispatches with a
 * switch (a jump table of absolute addresses in .rodata).
 *
 *   known_applets spin SECONDS   main -> applet_spin -> a -> b -> c -> leaf (spins)
 *   known_applets count N | sum N | echo WORD   short applets
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline, noclone))

volatile unsigned long sink;

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

NOINLINE void c(double s) {
  leaf(s);
  sink++;
}

NOINLINE void b(double s) {
  c(s);
  sink++;
}

NOINLINE void a(double s) {
  b(s);
  sink++;
}

static NOINLINE int applet_spin(int argc, char** argv) {
  const double s = argc > 1 ? atof(argv[1]) : 0.01;
  switch (argc > 2 ? argv[2][0] - '0' : 3) {
    case 0: sink += 11; break;
    case 1: sink ^= 0x55; break;
    case 2: sink *= 3; break;
    case 3: a(s); break;
    case 4: sink -= 7; break;
    case 5: sink <<= 1; break;
    case 6: sink += strlen(argv[0]); break;
    default: return 2;
  }
  sink++;
  return 0;
}

static NOINLINE int applet_count(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 10;
  for (long i = 0; i < n; ++i) {
    switch (i % 8) {
      case 0: sink += 1; break;
      case 1: sink ^= (unsigned long)i; break;
      case 2: sink *= 5; break;
      case 3: sink -= 3; break;
      case 4: sink >>= 1; break;
      case 5: sink += strlen(argv[0]); break;
      case 6: sink |= 0x100; break;
      default: sink += 9; break;
    }
  }
  return 0;
}

static NOINLINE int applet_sum(int argc, char** argv) {
  unsigned long total = 0;
  for (int i = 1; i < argc; ++i) {
    switch (argv[i][0]) {
      case 'a': total += 1; break;
      case 'b': total *= 2; break;
      case 'c': total ^= 0xff; break;
      case 'd': total -= 4; break;
      case 'e': total += strlen(argv[i]); break;
      case 'f': total <<= 2; break;
      case 'g': total |= 0x10; break;
      default: total += (unsigned long)atol(argv[i]); break;
    }
  }
  sink += total;
  return 0;
}

static NOINLINE int applet_echo(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    switch (strlen(argv[i])) {
      case 0: putchar('\n'); break;
      case 1: puts("one"); break;
      case 2: puts("two"); break;
      case 3: fputs(argv[i], stdout); break;
      case 4: printf("[%s]\n", argv[i]); break;
      case 5: sink += 5; break;
      default: puts(argv[i]); break;
    }
  }
  return 0;
}

struct applet {
  const char* name;
  int (*main)(int argc, char** argv);
};

static const struct applet applets[] = {
    {"spin", applet_spin}, {"count", applet_count}, {"sum", applet_sum}, {"echo", applet_echo}};

static NOINLINE int find_applet(const char* name) {
  for (size_t i = 0; i < sizeof applets / sizeof *applets; ++i)
    if (!strcmp(applets[i].name, name)) return (int)i;
  return -1;
}

int main(int argc, char** argv) {
  const int i = find_applet(argc > 1 ? argv[1] : "spin");
  if (i < 0) return 1;
  const int status = applets[i].main(argc - 1, argv + 1);
  printf("%lu\n", sink);
  return status;
}
