#!/usr/bin/env bash
# What the build-id cache costs and gives (docs/build-id-cache.md):
#
#   bench/build_id_cache.sh [ROUNDS]
#
# 1. The time `record` adds at its end to keep the binaries its samples hit
#    (xz -6 on 1 MB, ~0.5 s): the fill alone, as record calls it
#    (swprof_build_id_cache_bench: into an empty cache as hard links, as
#    copies on /dev/shm, another file system, and into a cache holding them),
#    then whole recordings alternating --no-cache, an empty cache (links), an
#    empty cache on /dev/shm (copies) and a warm cache; ROUNDS rounds (default
#    15), medians of wall and CPU (user + system) time.
# 2. What the cache keeps per binary, as copies (on /dev/shm), after
#    recording xz and a gcc compile (cc1): `swprof cache list`.
# 3. A report of a program rebuilt since it was recorded, with the cache and
#    with --no-cache: its top stack, the share of complete stacks and its time.
#
# Every cache lives in a scratch folder (XDG_CACHE_HOME), never the user's.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-15}"
SWPROF="$(realpath "${SWPROF:-build/swprof}")"
. bench/common.sh

work=$(mktemp -d /tmp/swprof-cache-bench.XXXXXX)
shm=$(mktemp -d /dev/shm/swprof-cache-bench.XXXXXX)
trap 'rm -rf "$work" "$shm"' EXIT
head -c 1000000 "$(bench_input "$work")" > "$work/input"
workload=(xz -6 -T1 -c "$work/input")

# record_time XDG [OPTIONS]: "wall_s cpu_s" of one recording of the workload.
record_time() {
  local xdg=$1
  shift
  XDG_CACHE_HOME="$xdg" bench_time "$work/time" "$SWPROF" record -F 999 "$@" -o "$work/rec.swprof" -- "${workload[@]}" |
    awk '{print $1, $2}'
}

echo "## 1. record's end: xz -6 on 1 MB, $ROUNDS rounds, medians"
XDG_CACHE_HOME="$work/seen" "$SWPROF" record -F 999 -o "$work/rec.swprof" -- "${workload[@]}" > /dev/null 2>&1
mapfile -t kept < <(XDG_CACHE_HOME="$work/seen" "$SWPROF" cache list | awk 'NR > 1 && $6 ~ /^\// {print $6}')
echo "the files record keeps: ${kept[*]}"
FILL="$(dirname "$SWPROF")/bench/swprof_build_id_cache_bench"
"$FILL" "$work/fill" --rounds "$ROUNDS" "${kept[@]}"
"$FILL" "$shm/fill" --rounds "$ROUNDS" "${kept[@]}"
: > "$work/none"; : > "$work/link"; : > "$work/copy"; : > "$work/warm"
for round in $(seq "$ROUNDS"); do
  rm -rf "$work/link-cache" "$shm/copy-cache"
  record_time "$work/none-cache" --no-cache >> "$work/none"
  record_time "$work/link-cache" >> "$work/link"
  record_time "$shm/copy-cache" >> "$work/copy"
  record_time "$work/seen" >> "$work/warm"
done
[ ! -e "$work/none-cache" ] || { echo "--no-cache wrote a cache" >&2; exit 1; }
printf "| record | wall (s) | CPU (s) |\n|---|---|---|\n"
for kind in none link copy warm; do
  printf "| %s | %s | %s |\n" "$kind" "$(cut -d' ' -f1 "$work/$kind" | median)" "$(cut -d' ' -f2 "$work/$kind" | median)"
done
echo
echo "## 2. what the cache keeps per binary, as copies"
cat > "$work/unit.c" << 'EOF'
#include <stdio.h>
#define F(n) static int f##n(int x) { return x * n + (x >> 3); }
F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8)
int main(void) { int s = 0; for (int i = 0; i < 1000; ++i) s += f1(f2(f3(f4(f5(f6(f7(f8(i)))))))); printf("%d\n", s); }
EOF
XDG_CACHE_HOME="$shm" "$SWPROF" record -F 999 -o "$work/xz.swprof" -- "${workload[@]}" > /dev/null 2>&1
XDG_CACHE_HOME="$shm" "$SWPROF" record -F 999 -o "$work/gcc.swprof" -- gcc -O2 -g -c "$work/unit.c" -o "$work/unit.o" 2>&1 |
  grep -v '^swprof:' || true
XDG_CACHE_HOME="$shm" "$SWPROF" cache list | sed 's/^/    /'
du -sh --apparent-size "$shm/swprof" | sed 's/^/    du: /'

echo
echo "## 3. a report of a program rebuilt since it was recorded"
cat > "$work/app.c" << 'EOF'
#include <stdlib.h>
#include <time.h>
volatile unsigned long sink;
#ifdef VARIANT
__attribute__((noinline)) void added_first(void) { for (int i = 0; i < 99; ++i) sink -= i; }
#endif
__attribute__((noinline)) void leaf_work(void) { for (int i = 0; i < 1000; ++i) sink += i * 7; }
__attribute__((noinline)) void middle_call(void) { leaf_work(); }
int main(int argc, char** argv) {
  double secs = argc > 1 ? atof(argv[1]) : 1;
  struct timespec s, n;
  clock_gettime(CLOCK_MONOTONIC, &s);
  do {
    middle_call();
    clock_gettime(CLOCK_MONOTONIC, &n);
  } while ((n.tv_sec - s.tv_sec) + (n.tv_nsec - s.tv_nsec) / 1e9 < secs);
  return 0;
}
EOF
cc -O1 -g -o "$work/app" "$work/app.c"
XDG_CACHE_HOME="$work" "$SWPROF" record -F 999 -o "$work/app.swprof" -- "$work/app" 1 > /dev/null 2>&1
cc -O0 -g -DVARIANT -o "$work/app" "$work/app.c"
for cache in "" --no-cache; do
  echo "swprof report -f folded${cache:+ $cache} (rebuilt):"
  XDG_CACHE_HOME="$work" bench_time "$work/time" "$SWPROF" report -f folded $cache "$work/app.swprof" |
    awk '{printf "    wall %s s, CPU %s s\n", $1, $2}'
  XDG_CACHE_HOME="$work" "$SWPROF" report -f folded $cache "$work/app.swprof" 2> "$work/err" | sort -t' ' -k2 -nr |
    head -1 | sed 's/^/    top: /'
  grep -o '[0-9.]*% complete stacks' "$work/err" | sed 's/^/    /'
  echo "    warnings: $(grep -c warning "$work/err" || true)"
done
