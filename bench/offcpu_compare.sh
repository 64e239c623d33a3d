#!/usr/bin/env bash
# Cost of recording off-CPU stacks: swprof record --off-cpu vs perf on a
# context-switch-heavy workload (bench/pingpong.c: two threads passing a byte
# over pipes, about 2 switch-outs per round trip) and on a sleepy one
# (known_waits: a worker that sleeps, blocks on a pipe and spins).
#
#   bench/offcpu_compare.sh [ROUNDS] [PINGPONG_SIZES]
#
# Defaults: 3 rounds, pingpong sizes "20000 50000". Each configuration runs
# ROUNDS times, alternating, pinned to CPU 1 (`taskset -c 1`, profiler and
# workload alike: reproducible on a 2-core machine) and unpinned; medians are
# printed. perf's sched:sched_switch needs tracefs: when it is not mounted the
# script mounts it in a private mount namespace (unshare --mount) for perf only.
# The workload times itself (pingpong and known_waits print their elapsed
# time), so the overhead per switch-out is the slowdown the profiled program
# sees, apart from each tool's start-up and its work after the program ends
# (perf's build-id pass); the end-to-end wall time is a column of its own.
# Prints Markdown tables (paste into bench/RESULTS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-3}"
SIZES="${2:-20000 50000}"
SWPROF="${SWPROF:-build/swprof}"
WAITS="${WAITS:-build/tests/programs/known_waits}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/swprof-offcpu.XXXXXX")"
touch "$WORK/.start"
# perf leaves a copy of the vDSO as /tmp/perf-vdso.so-XXXXXX: remove the ones
# made by this run.
trap 'find /tmp -maxdepth 1 -name "perf-vdso.so-*" -newer "$WORK/.start" -user "$(id -u)" -delete 2>/dev/null; rm -rf "$WORK"' EXIT
cc -O2 -g -pthread -o "$WORK/pingpong" bench/pingpong.c

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

tracefs_ready() { [ -e /sys/kernel/tracing/events/sched/sched_switch ] || [ -e /sys/kernel/debug/tracing/events/sched/sched_switch ]; }
# Runs perf with sched:sched_switch, mounting tracefs privately when needed.
perf_sched() {
  if tracefs_ready; then
    perf record -q -e sched:sched_switch --call-graph dwarf,8192 "$@"
  else
    unshare --mount sh -c 'mount -t tracefs nodev /sys/kernel/tracing && exec perf record -q -e sched:sched_switch --call-graph dwarf,8192 "$@"' sh "$@"
  fi
}

# The workload's own elapsed seconds, from what it printed.
self_time() {
  cat "$WORK/$1.out" "$WORK/$1.err" | sed -nE 's/.* in ([0-9.]+) s.*/\1/p' | head -1
}

# run_one NAME PIN CMD...: one run; prints "end-to-end-seconds workload-seconds";
# leaves the output in $WORK/NAME.*
run_one() {
  local name="$1" pin="$2"; shift 2
  local pre=()
  [ "$pin" = pinned ] && pre=(taskset -c 1)
  local t0 t1
  t0=$(now)
  case "$name" in
    none) "${pre[@]}" "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" ;;
    swprof) "${pre[@]}" "$SWPROF" record --off-cpu -o "$WORK/$name.data" -- "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" ;;
    swprof-min0) "${pre[@]}" "$SWPROF" record --off-cpu --off-cpu-min 0 -o "$WORK/$name.data" -- "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" ;;
    perf-cs) "${pre[@]}" perf record -q -e cs -c 1 --call-graph dwarf,8192 -o "$WORK/$name.data" -- "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" ;;
    perf-sched) "${pre[@]}" bash -c "$(declare -f tracefs_ready perf_sched); perf_sched -o '$WORK/$name.data' -- \"\$@\"" sh "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" ;;
  esac
  t1=$(now)
  echo "$(echo "$t1 - $t0" | bc -l) $(self_time "$name")"
}

# Switch-outs, records kept with stacks, lost and bytes per switch of a run.
swprof_counts() {  # NAME -> "outs stacks lost bytes"
  local line
  line=$(grep 'swprof: off-CPU:' "$WORK/$1.err" || true)
  local outs stacks lost
  outs=$(echo "$line" | sed -E 's/.*off-CPU: ([0-9]+) switch-outs.*/\1/')
  stacks=$(echo "$line" | sed -E 's/.* ([0-9]+) samples with stacks.*/\1/')
  lost=$(echo "$line" | sed -E 's/.* ([0-9]+) lost.*/\1/')
  echo "$outs $stacks $lost $(stat -c %s "$WORK/$1.data")"
}
perf_counts() {  # NAME -> "samples lost bytes"
  perf report --stats -i "$WORK/$1.data" > "$WORK/$1.stats" 2> /dev/null || true
  # The last table of --stats sums the lost samples; LOST records are ring
  # overruns whose records are gone too (counted as chunks).
  local samples lost chunks
  samples=$(awk '/ SAMPLE events:/{print $3; exit}' "$WORK/$1.stats")
  lost=$(awk '/LOST_SAMPLES events:/{v=$3} END {print v+0}' "$WORK/$1.stats")
  chunks=$(awk '/ LOST events:/{print $3; exit}' "$WORK/$1.stats")
  echo "${samples:-0} ${lost}+${chunks:-0}chunks $(stat -c %s "$WORK/$1.data")"
}

table() {  # WORKLOAD_LABEL PIN CMD...
  local label="$1" pin="$2"; shift 2
  declare -A times selfs
  local configs=(none swprof swprof-min0 perf-cs perf-sched)
  for round in $(seq "$ROUNDS"); do
    for c in "${configs[@]}"; do
      read -r e w < <(run_one "$c" "$pin" "$@")
      times[$c]+="$e "
      selfs[$c]+="$w "
    done
  done
  local base wall_base
  base=$(printf '%s\n' ${selfs[none]} | median)
  wall_base=$(printf '%s\n' ${times[none]} | median)
  read -r outs _ _ _ < <(swprof_counts swprof)
  echo
  echo "#### $label, $pin ($outs switch-outs per run; medians of $ROUNDS)"
  echo
  echo "| configuration | workload s | overhead µs per switch-out | end-to-end s | stacks written | lost | bytes per switch-out |"
  echo "|---|---|---|---|---|---|---|"
  printf '| no profiler | %.3f | — | %.3f | — | — | — |\n' "$base" "$wall_base"
  for c in swprof swprof-min0; do
    local t e o s l b
    t=$(printf '%s\n' ${selfs[$c]} | median)
    e=$(printf '%s\n' ${times[$c]} | median)
    read -r o s l b < <(swprof_counts "$c")
    printf '| swprof record --off-cpu%s | %.3f | %.1f | %.3f | %s | %s | %.1f |\n' "$([ $c = swprof-min0 ] && echo ' --off-cpu-min 0')" \
      "$t" "$(echo "($t - $base) * 1000000 / $o" | bc -l)" "$e" "$s" "$l" "$(echo "$b / $o" | bc -l)"
  done
  for c in perf-cs perf-sched; do
    local t e s l b
    t=$(printf '%s\n' ${selfs[$c]} | median)
    e=$(printf '%s\n' ${times[$c]} | median)
    read -r s l b < <(perf_counts "$c")
    local desc="perf record -e cs -c 1 --call-graph dwarf,8192"
    [ $c = perf-sched ] && desc="perf record -e sched:sched_switch --call-graph dwarf,8192"
    printf '| %s | %.3f | %.1f | %.3f | %s | %s | %.1f |\n' "$desc" "$t" "$(echo "($t - $base) * 1000000 / $outs" | bc -l)" \
      "$e" "$s" "$l" "$(echo "$b / $outs" | bc -l)"
  done
}

perf_offcpu=$(perf record --off-cpu -o "$WORK/x.data" -- true 2>&1 || true)
if grep -q "off-cpu' is being ignored" <<< "$perf_offcpu"; then
  echo "perf record --off-cpu: not built into this perf (no BUILD_BPF_SKEL)"
else
  echo "perf record --off-cpu: available (not compared here)"
fi
for n in $SIZES; do
  table "pingpong $n" pinned "$WORK/pingpong" "$n"
  table "pingpong $n" unpinned "$WORK/pingpong" "$n"
done
table "known_waits 100 (sleepy)" unpinned "$WAITS" 100
