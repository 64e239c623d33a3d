#!/usr/bin/env bash
# Reports at every size, swprof vs perf: the same workload (`xz -9 -T1` over
# a fixed pseudo-random input, cpu-clock, the same rate and stack size for
# both tools) recorded at about 500, 30k, 300k and 1M samples with
# `swprof record` and `perf record --call-graph dwarf`, plus a workload of
# many short processes (20 `gcc -O2 -c` of small C files). Each recording is
# reported by `swprof report` (its own recording, and the perf.data) and by
# `perf report --stdio` (the perf.data), alternating, medians of ROUNDS:
# wall and CPU seconds, samples per wall second, peak RSS, and the ratios to
# perf report. Prints a Markdown table for bench/RESULTS.md (also written
# to DIR/results.md); progress and step times go to stderr.
#
#   bench/report_scale.sh [DIR] [--sizes 500,30k,300k,gcc] [--remake]
#                         [--rounds 3] [--freq 4000] [--swprof PATH] [--table]
#                         [--perf-cache]
#
# Each size is recorded (unless cached) and then reported ROUNDS times
# before the next size starts. --table prints the table again from the
# times kept in DIR, running nothing. The two tools record side by side.
#
# The default sizes leave out 1m: recording it takes about 250 CPU seconds
# of xz per tool (over 25 minutes on this machine when loaded) and 17 GB of
# perf.data; add it with --sizes 500,30k,300k,1m,gcc (reporting it, once
# recorded, takes a few minutes).
#
# DIR (default bench/out/scale) caches the recordings: a second run reuses
# them, --remake records them again. Sizes below 100k samples use 32 KB
# stacks (swprof's default), larger ones 16 KB so perf.data fits on the disk
# (1M samples is about 16 GB of perf.data: when the disk has less room, the
# size is recorded by swprof only, and the table says so). The xz workload
# runs a number of CPU seconds, not wall seconds, so a loaded machine does
# not change the sample count: the script times one xz run first (kept in
# DIR/calibration.txt). SWPROF (or --swprof) names the binary to measure;
# the default is build/swprof. Everything the script writes stays in DIR.
#
# perf records with -N, so no build-id cache is written (it would go to
# ~/.debug): perf report then names a perf.data file's kernel frames from
# /proc/kallsyms, whose formatting costs the kernel about 37 ms on this
# machine, and swprof (as root) asks the running kernel for each address
# (symbolize/live_kernel_symbols.h), or reads /proc/kallsyms too where it
# cannot. --perf-cache reports as after a plain `perf record`, which copies
# kallsyms into its build-id cache: one `perf record -a` writes that cache
# into DIR/perf-home/.debug, and the reports run with HOME=DIR/perf-home.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SWPROF="${SWPROF:-$ROOT/build/swprof}"
DIR="$ROOT/bench/out/scale"
SIZES="500,30k,300k,gcc"
REMAKE=0
TABLE_ONLY=0
PERF_CACHE=0
ROUNDS=3
FREQ=4000
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) SIZES=$2; shift 2 ;;
    --remake) REMAKE=1; shift ;;
    --table) TABLE_ONLY=1; shift ;;
    --perf-cache) PERF_CACHE=1; shift ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --freq) FREQ=$2; shift 2 ;;
    --swprof) SWPROF=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) DIR=$1; shift ;;
  esac
done
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
SWPROF=$(realpath "$SWPROF")
. "$ROOT/bench/common.sh"

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%.1f", b - a}'; }

# sample_target NAME: the samples a size name asks for (500, 30k, 1m, ...).
sample_target() {
  awk -v s="$1" 'BEGIN {
    n = s + 0; u = tolower(substr(s, length(s)))
    if (u == "k") n *= 1000; else if (u == "m") n *= 1000000
    print int(n) }'
}

# stack_for SAMPLES: bytes of stack both tools copy per sample.
stack_for() { [ "$1" -lt 100000 ] && echo 32768 || echo 16384; }

# calibrate: "full_cpu_s small_cpu_s full_bytes", the CPU seconds of one
# `xz -9 -T1` over the input and over its first MiB, measured once per DIR.
calibrate() {
  local cal="$DIR/calibration.txt" input
  input=$(bench_input "$DIR")
  if [ "$REMAKE" = 1 ] || [ ! -s "$cal" ]; then
    head -c 1048576 "$input" > "$DIR/input-1m.bin"
    local full small
    full=$(bench_time "$DIR/time.txt" xz -9 -T1 -c "$input" | awk '{print $2}')
    small=$(bench_time "$DIR/time.txt" xz -9 -T1 -c "$DIR/input-1m.bin" | awk '{print $2}')
    echo "$full $small $(stat -c %s "$input")" > "$cal"
  fi
  cat "$cal"
}

# xz_plan SAMPLES: "REPEATS FILE", how many xz runs over which input give
# about SAMPLES samples at FREQ: whole-input runs, or for small sizes one run
# over a prefix sized in proportion to the calibration on the first MiB
# (below it) or between the two calibrations (above it).
xz_plan() {
  local full small bytes input
  read -r full small bytes < <(calibrate)
  input=$(bench_input "$DIR")
  awk -v n="$1" -v f="$FREQ" -v full="$full" -v small="$small" -v bytes="$bytes" \
      -v input="$input" -v dir="$DIR" 'BEGIN {
    t = n / f
    if (t >= 0.75 * full) { r = int(t / full + 0.5); print (r < 1 ? 1 : r), input; exit }
    mib = 1048576
    if (t <= small || full <= small) b = mib * t / small
    else b = mib + (t - small) * (bytes - mib) / (full - small)
    if (b < 65536) b = 65536
    print 1, sprintf("%s/input-%d.bin", dir, b) }'
}

# workload NAME: the command both tools record for NAME, into the array WL.
workload() {
  if [ "$1" = gcc ]; then
    gcc_sources
    WL=(env TMPDIR="$DIR/gcc/tmp" sh -c 'cd "$1" && for i in $(seq 20); do gcc -O2 -c "c$i.c" -o "c$i.o"; done' sh "$DIR/gcc")
    return
  fi
  local repeats file
  read -r repeats file < <(xz_plan "$(sample_target "$1")")
  [ -s "$file" ] || head -c "$(basename "$file" .bin | sed 's/^input-//')" "$(bench_input "$DIR")" > "$file"
  WL=(sh -c 'for i in $(seq "$1"); do xz -9 -T1 -c "$2" > /dev/null; done' sh "$repeats" "$file")
}

# gcc_sources: 20 small C files in DIR/gcc, and gcc's temporary directory.
gcc_sources() {
  mkdir -p "$DIR/gcc/tmp"
  local i
  for i in $(seq 20); do
    printf '#include <stdio.h>\nint f%d(int x){return x*%d;}\nint main(void){printf("%%d\\n", f%d(3));return 0;}\n' \
      "$i" "$i" "$i" > "$DIR/gcc/c$i.c"
  done
}

# perf_tmp_files: the files perf may leave in /tmp (vDSO copies, perf maps).
perf_tmp_files() { find /tmp -maxdepth 1 \( -name 'perf-vdso.so-*' -o -name 'perf-*.map' \) 2> /dev/null | sort; }

# clean_perf_tmp SINCE_FILE: removes the perf temporary files that appeared
# since SINCE_FILE's list was taken and that no process holds open (a perf
# of someone else's still running keeps its own).
clean_perf_tmp() {
  local f
  comm -13 "$1" <(perf_tmp_files) | while read -r f; do
    if ! find /proc/[0-9]*/fd -lname "$f" 2> /dev/null | grep -q .; then
      rm -f "$f" && log "removed $f left by perf"
    fi
  done
}

# fits_on_disk SAMPLES STACK: whether a perf.data of that many samples fits
# in DIR with 5 GB to spare.
fits_on_disk() {
  local avail
  avail=$(df -B1 --output=avail "$DIR" | tail -n 1)
  awk -v n="$1" -v s="$2" -v a="$avail" 'BEGIN {exit !(n * (s + 600) + 5e9 < a)}'
}

# record_swprof NAME STACK: swprof's recording of the workload in WL; prints
# the seconds it took.
record_swprof() {
  local t0
  t0=$(now)
  "$SWPROF" record -F "$FREQ" --stack-size "$2" -o "$DIR/$1.swprof" -- "${WL[@]}" > /dev/null 2> "$DIR/$1.swprof.err"
  elapsed "$t0"
}

# record_perf NAME STACK: perf's recording of the workload in WL; prints the
# seconds it took.
record_perf() {
  local t0
  perf_tmp_files > "$DIR/perf-tmp.before"
  t0=$(now)
  perf record -q -N -e cpu-clock -F "$FREQ" --call-graph "dwarf,$2" -o "$DIR/$1.perf.data" -- "${WL[@]}" \
    > /dev/null 2> "$DIR/$1.perf.err" || true
  elapsed "$t0"
  clean_perf_tmp "$DIR/perf-tmp.before"
}

# record NAME: makes DIR/NAME.swprof and DIR/NAME.perf.data unless cached.
# The two tools record at the same time (one core each on this machine:
# the workload is counted in CPU seconds, so this changes no sample count).
# DIR/NAME.info keeps "swprof_samples perf_samples swprof_rec_s perf_rec_s
# stack" (perf fields "-" when perf.data did not fit).
record() {
  local name=$1 stack target sw_pid sw_s pf_s="-" pf_n="-"
  [ "$REMAKE" = 0 ] && [ -s "$DIR/$name.info" ] && return
  target=0
  [ "$name" = gcc ] || target=$(sample_target "$name")
  stack=$(stack_for "$target")
  workload "$name"
  rm -f "$DIR/$name.swprof" "$DIR/$name.perf.data" "$DIR/$name.perf.data.old"
  log "recording $name: ${WL[*]}"
  record_swprof "$name" "$stack" > "$DIR/$name.swprof.secs" &
  sw_pid=$!
  if fits_on_disk "$target" "$stack"; then
    pf_s=$(record_perf "$name" "$stack")
    pf_n=$(perf_sample_count "$DIR/$name.perf.data")
  else
    log "$name: a perf.data of $target samples at $stack bytes does not fit in $DIR: swprof only"
  fi
  wait "$sw_pid"
  sw_s=$(cat "$DIR/$name.swprof.secs")
  echo "$(swprof_sample_count "$SWPROF" "$DIR/$name.swprof") $pf_n $sw_s $pf_s $stack" > "$DIR/$name.info"
  log "recorded $name in $sw_s s (swprof) and $pf_s s (perf), side by side"
}

# The reports' HOME: DIR/perf-home with --perf-cache.
REPORT_HOME=${HOME:-}

# use_perf_cache: perf's build-id cache of the running kernel in
# DIR/perf-home/.debug, and the reports' HOME there.
use_perf_cache() {
  mkdir -p "$DIR/perf-home"
  HOME="$DIR/perf-home" perf record -q -a -o "$DIR/perf-home/cache.perf.data" -- sleep 0.1 > /dev/null 2>&1 || true
  rm -f "$DIR/perf-home/cache.perf.data"
  [ -d "$DIR/perf-home/.debug/[kernel.kallsyms]" ] || log "perf wrote no kallsyms copy into $DIR/perf-home/.debug"
  REPORT_HOME="$DIR/perf-home"
}

# time_round NAME: one round of the report commands on NAME, appending
# "wall cpu rss" to DIR/NAME.KIND.times for KIND in sw, swpd, perf.
time_round() {
  local name=$1 pd="$DIR/$1.perf.data" t0
  t0=$(now)
  HOME="$REPORT_HOME" bench_time "$DIR/time.txt" "$SWPROF" report "$DIR/$name.swprof" >> "$DIR/$name.sw.times" \
    || log "swprof report $name.swprof failed: $(tail -n 2 "$DIR/time.txt.err")"
  [ -s "$pd" ] || return 0
  HOME="$REPORT_HOME" bench_time "$DIR/time.txt" "$SWPROF" report "$pd" >> "$DIR/$name.swpd.times" \
    || log "swprof report $name.perf.data failed: $(tail -n 2 "$DIR/time.txt.err")"
  perf_tmp_files > "$DIR/perf-tmp.before"
  HOME="$REPORT_HOME" bench_time "$DIR/time.txt" perf report --stdio -i "$pd" >> "$DIR/$name.perf.times" \
    || log "perf report $name.perf.data failed: $(tail -n 2 "$DIR/time.txt.err")"
  clean_perf_tmp "$DIR/perf-tmp.before"
  log "round of $name reports: $(elapsed "$t0") s"
}

# medians FILE: "wall cpu rss_kb", each the median of its column.
medians() {
  [ -s "$1" ] || { echo "- - -"; return; }
  echo "$(awk '{print $1}' "$1" | median) $(awk '{print $2}' "$1" | median) $(awk '{print $3}' "$1" | median)"
}

# row LABEL COMMAND SAMPLES "wall cpu rss" "perf_samples perf_wall perf_cpu perf_rss":
# one table row; speed is samples per wall (and per CPU) second against perf
# report's.
row() {
  local m p
  read -r -a m <<< "$4"
  read -r -a p <<< "$5"
  [ "${m[0]}" = - ] && return
  awk -v l="$1" -v c="$2" -v n="$3" -v w="${m[0]}" -v cpu="${m[1]}" -v r="${m[2]}" \
      -v pn="${p[0]}" -v pw="${p[1]}" -v pc="${p[2]}" -v pr="${p[3]}" 'BEGIN {
    sps = (w > 0) ? n / w : 0
    speed = "n/a"; mem = "n/a"
    if (pw != "-" && pw > 0 && w > 0 && cpu > 0)
      speed = sprintf("%.2f× / %.2f×", sps / (pn / pw), (n / cpu) / (pn / pc))
    if (pr != "-" && pr > 0) mem = sprintf("%.3f×", r / pr)
    printf "| %s | %s | %s | %.3f | %.2f | %.0f | %.0f | %s | %s |\n", l, c, n, w, cpu, sps, r / 1024, speed, mem }'
}

# table_rows NAME: the rows of NAME's three commands.
table_rows() {
  local name=$1 sw_n pf_n stack label perf_m
  read -r sw_n pf_n _ _ stack < "$DIR/$name.info"
  label="$name ($stack B stacks)"
  [ "$name" = gcc ] && label="gcc: 20 × gcc -O2 -c ($stack B stacks)"
  perf_m=$(medians "$DIR/$name.perf.times")
  local perf_ref="$pf_n $perf_m"
  row "$label" "swprof report (.swprof)" "$sw_n" "$(medians "$DIR/$name.sw.times")" "$perf_ref"
  row "$label" "swprof report (perf.data)" "$pf_n" "$(medians "$DIR/$name.swpd.times")" "$perf_ref"
  row "$label" "perf report --stdio" "$pf_n" "$perf_m" "$perf_ref"
  [ "$pf_n" = - ] && echo "| $label | perf report | - | perf.data would not fit on the disk | | | | | |"
  return 0
}

# run NAME: records NAME unless cached, then ROUNDS rounds of its reports.
run() {
  local name=$1 t0
  record "$name"
  rm -f "$DIR/$name".{sw,swpd,perf}.times
  t0=$(now)
  for _ in $(seq "$ROUNDS"); do time_round "$name"; done
  log "$name: $ROUNDS rounds of reports in $(elapsed "$t0") s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
}

# table NAMES...: the Markdown table and the recording times.
table() {
  local name
  local kernel_names="perf.data kernel names of the running kernel (no build-id cache: perf report reads /proc/kallsyms)"
  [ "$PERF_CACHE" = 1 ] && kernel_names="perf.data kernel names from perf's build-id cache (--perf-cache)"
  echo "$("$SWPROF" --version 2> /dev/null | head -n 1), $(perf --version), -F $FREQ cpu-clock, medians of $ROUNDS alternating rounds, $kernel_names"
  echo
  echo "| recording | command | samples | wall s | CPU s | samples/s | peak RSS MB | speed vs perf report (wall / CPU) | RSS vs perf report |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for name in "$@"; do [ -s "$DIR/$name.info" ] && table_rows "$name"; done
  echo
  echo "Recording time (s), swprof / perf:"
  echo
  for name in "$@"; do
    [ -s "$DIR/$name.info" ] || continue
    awk -v n="$name" '{printf "- %s: %s / %s (swprof %s samples, perf %s samples)\n", n, $3, $4, $1, $2}' "$DIR/$name.info"
  done
}

main() {
  local names name total
  IFS=, read -r -a names <<< "$SIZES"
  if [ "$TABLE_ONLY" = 0 ]; then
    total=$(now)
    log "swprof: $SWPROF ($("$SWPROF" --version 2> /dev/null | head -n 1))"
    log "cache: $DIR; disk: $(df -h --output=avail "$DIR" | tail -n 1 | tr -d ' ') available"
    [ "$PERF_CACHE" = 1 ] && use_perf_cache
    for name in "${names[@]}"; do run "$name"; done
    log "whole run $(elapsed "$total") s"
  fi
  table "${names[@]}" | tee "$DIR/results.md"
}

# One line: bash has read all of it before main runs.
main; exit
