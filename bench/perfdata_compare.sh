#!/usr/bin/env bash
# Reading perf.data, swprof vs perf, on the same file: records a workload
# with `perf record --call-graph dwarf` for each duration given, then times
# `swprof report`, `perf report --stdio` and `perf script` on that file (wall
# seconds, peak RSS from /usr/bin/time, samples/s) and compares the share of
# complete stacks of `swprof script` and `perf script` by bench/outermost.py
# (one rule for both).
#
#   bench/perfdata_compare.sh [SECONDS...]
#
# Default: 1.5 and 12 s of `xz -9 -T1` at 4000 Hz (about 5k and 50k samples
# on an idle core); 50 s gives about 200k (a 1.6 GB file).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATIONS=("$@")
[ ${#DURATIONS[@]} -gt 0 ] || DURATIONS=(1.5 12)
FREQ="${FREQ:-4000}"
SWPROF="${SWPROF:-build/swprof}"
WORK="${BENCH_DIR:-bench/out}"
mkdir -p "$WORK"
. bench/common.sh
input=$(bench_input "$WORK")

# measure NAME SAMPLES CMD...: wall seconds, CPU seconds (user + system, all
# threads: on a shared machine the fairer figure), peak RSS, samples per
# wall second.
measure() {
  local name=$1 samples=$2
  shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/time.txt" "$@" > /dev/null 2> "$WORK/measure.err" || {
    echo "$name failed:"; tail -n 3 "$WORK/measure.err"; return
  }
  read -r wall user sys rss < "$WORK/time.txt"
  awk -v n="$name" -v w="$wall" -v c="$(echo "$user + $sys" | bc)" -v r="$rss" -v s="$samples" \
    'BEGIN { printf "  %-26s %7.2f s wall  %7.2f s CPU  %6.0f MB  %8.0f samples/s\n", n, w, c, r / 1024, (w > 0 ? s / w : 0) }'
}

for d in "${DURATIONS[@]}"; do
  data="$WORK/perfdata-$d.data"
  workload=(timeout -s INT "$d" sh -c "while :; do xz -9 -T1 -c '$input' > /dev/null; done")
  perf record -q -N -F "$FREQ" --call-graph dwarf -o "$data" -- "${workload[@]}" > /dev/null 2> "$WORK/perfdata-record.err" || true
  samples=$(perf_sample_count "$data")
  echo "perf record --call-graph dwarf -F $FREQ, ${d} s of xz -9: $samples samples, $(stat -c %s "$data") bytes"
  measure "swprof report" "$samples" "$SWPROF" report "$data"
  measure "perf report --stdio" "$samples" perf report -i "$data" --stdio
  measure "perf script" "$samples" perf script -i "$data"
  s=$("$SWPROF" script "$data" 2> /dev/null | python3 bench/outermost.py)
  p=$(perf script -i "$data" 2> /dev/null | python3 bench/outermost.py)
  echo "  complete stacks: swprof $s   perf $p"
done
