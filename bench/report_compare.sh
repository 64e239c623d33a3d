#!/usr/bin/env bash
# End-to-end report speed and peak memory, swprof vs perf, on the same
# workload: records it with each tool (swprof record; perf record
# --call-graph dwarf), then times the report commands of each and reads their
# peak RSS from /usr/bin/time.
#
#   bench/report_compare.sh [SECONDS] [FREQ]
#
# Default: ~30 s of `xz -9 -T1` in a loop at 4000 Hz.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-30}"
FREQ="${2:-4000}"
SWPROF="${SWPROF:-build/swprof}"
WORK="${BENCH_DIR:-bench/out}"
mkdir -p "$WORK"
. bench/common.sh
input=$(bench_input "$WORK")
workload=(timeout -s INT "$DURATION" sh -c "while :; do xz -9 -T1 -c '$input' > /dev/null; done")

"$SWPROF" record -F "$FREQ" -o "$WORK/report.swprof" -- "${workload[@]}" > /dev/null 2> "$WORK/report-record.err" || true
perf record -q -F "$FREQ" --call-graph dwarf -o "$WORK/report.perf.data" -- "${workload[@]}" > /dev/null 2> "$WORK/report-perf-record.err" || true

swprof_samples=$(swprof_sample_count "$SWPROF" "$WORK/report.swprof")
perf_samples=$(perf_sample_count "$WORK/report.perf.data")

# measure NAME SAMPLES CMD...: wall seconds, peak RSS, samples per second.
measure() {
  local name=$1 samples=$2
  shift 2
  /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$@" > /dev/null 2> "$WORK/measure.err" || {
    echo "$name failed:"; cat "$WORK/measure.err"; return
  }
  read -r wall rss < "$WORK/time.txt"
  awk -v n="$name" -v w="$wall" -v r="$rss" -v s="$samples" \
    'BEGIN { printf "%-34s %8.2f s  %8.0f MB  %10.0f samples/s\n", n, w, r / 1024, (w > 0 ? s / w : 0) }'
}

echo "workload: ${workload[*]}  (-F $FREQ)"
echo "samples: swprof $swprof_samples, perf $perf_samples"
echo "recording size: swprof $(stat -c %s "$WORK/report.swprof") bytes, perf $(stat -c %s "$WORK/report.perf.data") bytes"
measure "swprof report (text)" "$swprof_samples" "$SWPROF" report "$WORK/report.swprof"
measure "swprof report -f folded" "$swprof_samples" "$SWPROF" report -f folded "$WORK/report.swprof"
measure "swprof report -j2 (two workers)" "$swprof_samples" "$SWPROF" report -j 2 "$WORK/report.swprof"
measure "perf report --stdio" "$perf_samples" perf report -i "$WORK/report.perf.data" --stdio
measure "perf script" "$perf_samples" perf script -i "$WORK/report.perf.data"
