#!/usr/bin/env bash
# Samples lost while recording a burst of process creation on a loaded
# machine: `swprof record` (default rate and rings) of `xargs -P 8` starting
# PROCESSES short processes (bench/exec_loop.c: each spins briefly and execs
# itself 3 times, so every one brings a fork, 4 execs, their mappings and
# an exit), with a CPU hog running beside it.
#
#   bench/fork_storm.sh [PROCESSES] [ROUNDS] [SWPROF...]
#
# Defaults: 3000 processes, 3 rounds, build/swprof. With several swprof
# binaries (a before and an after) the rounds alternate between them, so
# drift on a shared machine hits all alike. Prints one line per run (the
# binary, samples, lost, lost %, seconds) and a Markdown table of the totals.
set -euo pipefail
cd "$(dirname "$0")/.."
PROCESSES="${1:-3000}"
ROUNDS="${2:-3}"
shift $(( $# > 2 ? 2 : $# ))
BINARIES=("$@")
[ ${#BINARIES[@]} -gt 0 ] || BINARIES=(build/swprof)
WORK="$(mktemp -d "${TMPDIR:-/tmp}/swprof-storm.XXXXXX")"
HOG=""
trap '[ -n "$HOG" ] && kill "$HOG" 2>/dev/null; rm -rf "$WORK"' EXIT
cc -O2 -g -o "$WORK/exec_loop" bench/exec_loop.c

sh -c 'while :; do :; done' &
HOG=$!

declare -A samples lost
for round in $(seq "$ROUNDS"); do
  for bin in "${BINARIES[@]}"; do
    start=$(date +%s.%N)
    "$bin" record -o "$WORK/storm.swprof" -- sh -c "seq $PROCESSES | sed s/.*/3/ | xargs -P 8 -n 1 $WORK/exec_loop" \
      > /dev/null 2> "$WORK/err"
    end=$(date +%s.%N)
    s=$(sed -n 's/^swprof: [0-9.]* s, \([0-9]*\) samples.*/\1/p' "$WORK/err")
    l=$(sed -n 's/^swprof: \([0-9]*\) samples lost.*/\1/p' "$WORK/err")
    echo "$bin round $round: $s samples, $l lost ($(echo "scale=2; 100 * $l / ($s + $l)" | bc -l) %), $(echo "$end - $start" | bc -l | cut -c1-5) s"
    samples[$bin]=$(( ${samples[$bin]:-0} + s ))
    lost[$bin]=$(( ${lost[$bin]:-0} + l ))
  done
done

echo
echo "| swprof | runs | samples | lost | lost % |"
echo "|---|---|---|---|---|"
for bin in "${BINARIES[@]}"; do
  s=${samples[$bin]}
  l=${lost[$bin]}
  echo "| $bin | $ROUNDS | $s | $l | $(echo "scale=2; 100 * $l / ($s + $l)" | bc -l) |"
done
