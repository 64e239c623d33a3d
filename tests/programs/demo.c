/* The bundled demo program profiled by scripts/demo.sh: a small "log
 * processor" that generates records, parses them, hashes keys into a table
 * and sorts the result, so a profile shows a few distinct hot paths. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORDS 200000

struct entry {
  char key[32];
  uint64_t value;
};

static uint64_t rng_state = 88172645463325252ull;

__attribute__((noinline)) static uint64_t next_random(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

__attribute__((noinline)) static void generate_line(char* line, size_t n) {
  snprintf(line, n, "user%05llu action=%llu bytes=%llu", (unsigned long long)(next_random() % 50000),
           (unsigned long long)(next_random() % 16), (unsigned long long)(next_random() % 100000));
}

__attribute__((noinline)) static int parse_line(const char* line, struct entry* out) {
  const char* space = strchr(line, ' ');
  if (!space || (size_t)(space - line) >= sizeof out->key) return 0;
  memcpy(out->key, line, (size_t)(space - line));
  out->key[space - line] = '\0';
  const char* bytes = strstr(space, "bytes=");
  out->value = bytes ? strtoull(bytes + 6, NULL, 10) : 0;
  return 1;
}

__attribute__((noinline)) static uint64_t hash_key(const char* key) {
  uint64_t h = 1469598103934665603ull;
  for (int round = 0; round < 40; ++round)
    for (const char* p = key; *p; ++p) h = (h ^ (uint8_t)*p) * 1099511628211ull;
  return h;
}

static int compare_entries(const void* a, const void* b) {
  const struct entry* x = a;
  const struct entry* y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : (x->value > y->value) - (x->value < y->value);
}

__attribute__((noinline)) static void sort_entries(struct entry* entries, size_t n) {
  qsort(entries, n, sizeof *entries, compare_entries);
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 6;
  struct entry* entries = malloc(sizeof *entries * RECORDS);
  uint64_t checksum = 0;
  for (int r = 0; r < rounds; ++r) {
    size_t n = 0;
    char line[128];
    for (int i = 0; i < RECORDS; ++i) {
      generate_line(line, sizeof line);
      if (parse_line(line, &entries[n])) checksum += hash_key(entries[n++].key);
    }
    sort_entries(entries, n);
    checksum += entries[0].value;
  }
  printf("demo: processed %d rounds of %d records (checksum %llx)\n", rounds, RECORDS, (unsigned long long)checksum);
  free(entries);
  return 0;
}
