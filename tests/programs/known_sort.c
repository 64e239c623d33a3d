/* A comparator both inlined and called out of line, for the text report's
 * top table (tests/cli/report_test.cpp): compare_entries is always inlined
 * into merge_runs, the merge step of the recursive merge_sort, and its
 * address goes to libc's qsort, which calls the out-of-line copy from its
 * own recursion. Each sort takes about half of the time.
 *
 *   known_sort [SECONDS]   sorts for that much CPU time (default 0.5)
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 4096

static unsigned keys[N], scratch[N];
volatile unsigned sink;

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Compares mixed keys: enough work to be where the samples land. */
static inline __attribute__((always_inline)) int compare_entries(const void* a, const void* b) {
  unsigned x = *(const unsigned*)a, y = *(const unsigned*)b;
  for (int i = 0; i < 24; ++i) {
    x = x * 2654435761u + 0x9e3779b9u;
    y = y * 2654435761u + 0x9e3779b9u;
  }
  return (x > y) - (x < y);
}

__attribute__((noinline)) static void merge_runs(unsigned* v, size_t mid, size_t n) {
  size_t i = 0, j = mid, k = 0;
  while (i < mid && j < n) scratch[k++] = compare_entries(&v[i], &v[j]) <= 0 ? v[i++] : v[j++];
  while (i < mid) scratch[k++] = v[i++];
  while (j < n) scratch[k++] = v[j++];
  memcpy(v, scratch, n * sizeof *v);
}

__attribute__((noinline)) static void merge_sort(unsigned* v, size_t n) {
  if (n < 2) return;
  merge_sort(v, n / 2);
  merge_sort(v + n / 2, n - n / 2);
  merge_runs(v, n / 2, n);
}

static void fill(unsigned seed) {
  for (size_t i = 0; i < N; ++i) keys[i] = seed = seed * 1103515245u + 12345u;
}

int main(int argc, char** argv) {
  const double end = cpu_now() + (argc > 1 ? atof(argv[1]) : 0.5);
  unsigned round = 1;
  do {
    fill(round++);
    qsort(keys, N, sizeof keys[0], compare_entries);
    fill(round++);
    merge_sort(keys, N);
  } while (cpu_now() < end);
  sink = keys[0];
  return 0;
}
