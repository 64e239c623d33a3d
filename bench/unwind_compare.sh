#!/usr/bin/env bash
# Unwinding speed and completeness, stepper chain vs libunwind, on the same
# samples: records a workload, then replays its samples through both
# unwinders on one thread with warm caches.
#
#   bench/unwind_compare.sh [FREQ] [-- COMMAND ARGS...]
#
# Default workload: `xz -9 -T1` on the file bench/record_overhead.sh makes
# (generated here if missing), at 4000 Hz.
set -euo pipefail
cd "$(dirname "$0")/.."
FREQ="${1:-4000}"
shift || true
[ "${1:-}" = "--" ] && shift
SWPROF="${SWPROF:-build/swprof}"
WORK="${BENCH_DIR:-bench/out}"
mkdir -p "$WORK"
if [ $# -eq 0 ]; then
  . bench/common.sh
  set -- xz -9 -T1 -c "$(bench_input "$WORK")"
fi
"$SWPROF" record -F "$FREQ" -o "$WORK/unwind.swprof" -- "$@" > /dev/null 2> "$WORK/unwind-record.err"
echo "workload: $*  (-F $FREQ)"
build/bench/swprof_unwind_bench "$WORK/unwind.swprof" --benchmark_min_time=2
