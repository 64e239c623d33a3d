#!/usr/bin/env bash
# How long `swprof dump` stops each thread (PTRACE_INTERRUPT to PTRACE_DETACH,
# from `dump -v`), for 4 and 64 threads of bench/dump_threads.c (half blocked
# in read(), half spinning), by default (only running threads stopped) and
# with --stop (every thread). 20 dumps each; prints mean, median and max in µs.
# On a busy machine the window is mostly the wait for the interrupted thread
# to be scheduled (it must run to enter the stop): compare with the load.
# Usage: bench/dump_stop_window.sh [SWPROF]   (run as root or the same user)
set -euo pipefail
cd "$(dirname "$0")/.."
SWPROF="${1:-build/swprof}"
work=$(mktemp -d)
trap 'kill $target 2>/dev/null || true; rm -rf "$work"' EXIT
cc -O1 -g -pthread -o "$work/dump_threads" bench/dump_threads.c
for threads in 4 64; do
  "$work/dump_threads" "$threads" > "$work/out" &
  target=$!
  until grep -q ready "$work/out"; do sleep 0.01; done
  sleep 0.2
  for mode in default --stop; do
    args=(-v); [ "$mode" = --stop ] && args+=(--stop)
    for i in $(seq 20); do "$SWPROF" dump "${args[@]}" "$target" 2>&1 >/dev/null; done |
      awk '/stopped for/ { print $(NF-1) }' | sort -g |
      awk -v t="$threads" -v m="$mode" '{ v[++n] = $1; s += $1 }
        END { printf "%2d threads, %-7s: %4d stops, mean %8.1f us, median %8.1f us, max %8.1f us\n",
                     t, m, n, s / n, v[int((n + 1) / 2)], v[n] }'
  done
  kill "$target"; wait "$target" 2>/dev/null || true
done
