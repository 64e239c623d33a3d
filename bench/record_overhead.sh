#!/usr/bin/env bash
# End-to-end recording cost, swprof vs `perf record --call-graph dwarf`, on
# the same CPU-bound workload at the same rate and stack size.
#
#   bench/record_overhead.sh [FREQ] [STACK_SIZE] [ROUNDS]
#
# Defaults: 4000 Hz, 32768 bytes, 3 rounds. The workload is `xz -9 -T1` on a
# generated ~12 MB file. Rounds alternate baseline / swprof / perf so drift
# on this noisy machine hits all three alike; medians are reported.
# Prints a Markdown table (paste into bench/RESULTS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
FREQ="${1:-4000}"
STACK="${2:-32768}"
ROUNDS="${3:-3}"
SWPROF="${SWPROF:-build/swprof}"
WORK="${BENCH_DIR:-bench/out}"
mkdir -p "$WORK"

. bench/common.sh
input=$(bench_input "$WORK")
workload=(xz -9 -T1 -c "$input")

now() { date +%s.%N; }

base_t=(); sw_t=(); perf_t=()
for round in $(seq "$ROUNDS"); do
  t0=$(now); "${workload[@]}" > /dev/null; t1=$(now)
  base_t+=("$(echo "$t1 - $t0" | bc -l)")

  t0=$(now)
  "$SWPROF" record -F "$FREQ" --stack-size "$STACK" -o "$WORK/swprof.data" -- "${workload[@]}" > /dev/null 2> "$WORK/swprof.err"
  t1=$(now)
  sw_t+=("$(echo "$t1 - $t0" | bc -l)")

  t0=$(now)
  perf record -q -F "$FREQ" --call-graph "dwarf,$STACK" -o "$WORK/perf.data" -- "${workload[@]}" > /dev/null 2> "$WORK/perf.err"
  t1=$(now)
  perf_t+=("$(echo "$t1 - $t0" | bc -l)")
done

base=$(printf '%s\n' "${base_t[@]}" | median)
sw=$(printf '%s\n' "${sw_t[@]}" | median)
pf=$(printf '%s\n' "${perf_t[@]}" | median)

# swprof: counts from its own recording.
"$SWPROF" info "$WORK/swprof.data" > "$WORK/swprof.info"
sw_samples=$(awk '/^  total /{print $2}' "$WORK/swprof.info")
sw_lost=$(awk '/^  lost /{print $2}' "$WORK/swprof.info")
sw_bytes=$(stat -c %s "$WORK/swprof.data")

# perf: counts from `perf report --stats`.
perf report --stats -i "$WORK/perf.data" > "$WORK/perf.stats" 2>/dev/null || true
pf_samples=$(awk '/SAMPLE events:/{print $3; exit}' "$WORK/perf.stats")
pf_lost=$(awk '/LOST events:/{print $3; exit}' "$WORK/perf.stats")
pf_lost_samples=$(awk '/LOST_SAMPLES events:/{print $3; exit}' "$WORK/perf.stats")
pf_bytes=$(stat -c %s "$WORK/perf.data")

ratio() { echo "scale=3; $1 / $2" | bc -l; }
per() { [ "${2:-0}" -gt 0 ] && echo "$(( $1 / $2 ))" || echo "n/a"; }

echo "workload: ${workload[*]} ($(stat -c %s "$input") bytes), -F $FREQ, stack $STACK, $ROUNDS rounds, median wall time"
echo
echo "| | wall s | vs unprofiled | samples | lost | file bytes | bytes/sample |"
echo "|---|---|---|---|---|---|---|"
echo "| unprofiled | $base | 1.000 | | | | |"
echo "| swprof record | $sw | $(ratio "$sw" "$base") | $sw_samples | $sw_lost | $sw_bytes | $(per "$sw_bytes" "$sw_samples") |"
echo "| perf record --call-graph dwarf | $pf | $(ratio "$pf" "$base") | $pf_samples | ${pf_lost:-0} events, ${pf_lost_samples:-0} samples | $pf_bytes | $(per "$pf_bytes" "$pf_samples") |"
echo
echo "bytes/sample, perf / swprof: $(ratio "$(per "$pf_bytes" "$pf_samples")" "$(per "$sw_bytes" "$sw_samples")")"
