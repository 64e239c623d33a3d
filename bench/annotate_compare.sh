#!/usr/bin/env bash
# annotate and pprof's addresses: what they cost against `report`, and
# against `perf annotate`. Two workloads at SIZE samples (4000 Hz):
#   xz      bench/report_scale.sh's recordings (xz -9, recorded by swprof and
#           by perf --call-graph dwarf side by side; made there first when
#           missing). liblzma is stripped: its hot functions have no names,
#           so perf annotate has nothing to annotate; the rows without it.
#   swprof  a C++ program with symbols and DWARF: OLD_SWPROF reporting
#           DIR/SIZE.swprof of the xz workload, over and over, recorded by
#           `swprof record` and by a plain `perf record` (no call graph: what
#           perf annotate needs), one after the other.
# Then, alternating, medians of ROUNDS:
#   OLD report            swprof report of the .swprof by the OLD binary (a
#                         build of the base commit: `report` must not slow down)
#   report                the same by the NEW binary
#   annotate              swprof annotate of the hottest function with a name
#                         (any for xz; found by `annotate` first), of the .swprof
#   report perf.data      swprof report of the perf.data (NEW)
#   annotate perf.data    the annotate of the perf.data
#   report -f pprof       (NEW: by address) and OLD report -f pprof (by
#                         function): time and the file's size
#   perf annotate         perf annotate --stdio of the same symbol, of the
#                         perf.data (swprof workload)
# Prints wall s, CPU s, peak RSS and sizes as a Markdown table (also written
# to DIR/annotate-WORKLOAD-SIZE.md); progress goes to stderr.
#
#   bench/annotate_compare.sh OLD_SWPROF [DIR] [--workload xz|swprof] [--size 30k] [--rounds 5]
#                             [--swprof PATH]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SWPROF="${SWPROF:-$ROOT/build/swprof}"
DIR="$ROOT/bench/out/scale"
SIZE=30k
ROUNDS=5
OLD=""
WORKLOAD=xz
while [ $# -gt 0 ]; do
  case "$1" in
    --size) SIZE=$2; shift 2 ;;
    --workload) WORKLOAD=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --swprof) SWPROF=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) if [ -z "$OLD" ]; then OLD=$1; else DIR=$1; fi; shift ;;
  esac
done
[ -n "$OLD" ] || { echo "usage: $0 OLD_SWPROF [DIR] [--size 30k] [--rounds 5]" >&2; exit 2; }
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
SWPROF=$(realpath "$SWPROF")
OLD=$(realpath "$OLD")
. "$ROOT/bench/common.sh"
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

# The xz workload's recordings (they are the swprof workload's input too).
if [ ! -s "$DIR/$SIZE.swprof" ] || [ ! -s "$DIR/$SIZE.perf.data" ]; then
  log "recording $SIZE with bench/report_scale.sh"
  "$ROOT/bench/report_scale.sh" "$DIR" --sizes "$SIZE" --rounds 1 --swprof "$SWPROF" > /dev/null
fi
if [ "$WORKLOAD" = xz ]; then
  REC="$DIR/$SIZE.swprof"
  DATA="$DIR/$SIZE.perf.data"
else
  REC="$DIR/swprof-$SIZE.swprof"
  DATA="$DIR/swprof-$SIZE.perf.data"
  if [ ! -s "$REC" ] || [ ! -s "$DATA" ]; then
    # OLD's report of the xz recording, as many times as SIZE samples take.
    report_s=$(bench_time "$DIR/t" "$OLD" report "$DIR/$SIZE.swprof" | awk '{print $2}')
    samples=$(awk -v s="$SIZE" 'BEGIN {n = s + 0; u = tolower(substr(s, length(s)));
      if (u == "k") n *= 1000; else if (u == "m") n *= 1000000; print int(n)}')
    times=$(awk -v n="$samples" -v t="$report_s" 'BEGIN {r = int(n / 4000 / (t > 0 ? t : 0.1) + 0.5); print (r < 1 ? 1 : r)}')
    WL=(sh -c 'for i in $(seq "$1"); do "$2" report "$3" > /dev/null 2>&1; done' sh "$times" "$OLD" "$DIR/$SIZE.swprof")
    log "recording $times reports of $SIZE.swprof by swprof, then by perf"
    "$SWPROF" record -F 4000 -o "$REC" -- "${WL[@]}" > /dev/null 2>&1
    perf record -q -N -e cpu-clock -F 4000 -o "$DATA" -- "${WL[@]}" > /dev/null 2>&1
  fi
fi
# The function: xz, the hottest (liblzma has no names); swprof, the hottest
# of the swprof binary itself (C++, with DWARF).
FUNCTION=$("$SWPROF" annotate "$REC" --top 100 -f json 2> /dev/null | python3 -c '
import json, sys
functions = json.load(sys.stdin)
own = [f for f in functions if f["module"] == "swprof" and not f["function"].startswith("[")]
print((own if sys.argv[1] == "swprof" and own else functions)[0]["function"])' "$WORKLOAD")
PATTERN="^$(printf '%s' "$FUNCTION" | sed 's/[][\.*^$(){}?+|]/\\&/g')\$"
# perf names C++ functions without their parameters.
SYMBOL=$(python3 -c '
import sys
name, depth = sys.argv[1], 0
if name.endswith(")"):
    for i in range(len(name) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(name[i], 0)
        if depth == 0:
            name = name[:i]
            break
print(name)' "$FUNCTION")
log "$WORKLOAD $SIZE: $(swprof_sample_count "$SWPROF" "$REC") samples; the function: $FUNCTION"

declare -A NAME CMD
ORDER=(old_report report annotate report_perf annotate_perf pprof old_pprof)
[ "$WORKLOAD" = swprof ] && ORDER+=(perf_annotate)
NAME[old_report]="OLD swprof report (.swprof)"
NAME[report]="swprof report (.swprof)"
NAME[annotate]="swprof annotate $FUNCTION (.swprof)"
NAME[report_perf]="swprof report (perf.data)"
NAME[annotate_perf]="swprof annotate $FUNCTION (perf.data)"
NAME[pprof]="swprof report -f pprof (.swprof, by address)"
NAME[old_pprof]="OLD swprof report -f pprof (.swprof, by function)"
NAME[perf_annotate]="perf annotate --stdio -s $SYMBOL (perf.data)"
run_one() {
  case "$1" in
    old_report) bench_time "$DIR/t" "$OLD" report "$REC" ;;
    report) bench_time "$DIR/t" "$SWPROF" report "$REC" ;;
    annotate) bench_time "$DIR/t" "$SWPROF" annotate "$PATTERN" "$REC" ;;
    report_perf) bench_time "$DIR/t" "$SWPROF" report "$DATA" ;;
    annotate_perf) bench_time "$DIR/t" "$SWPROF" annotate "$PATTERN" "$DATA" ;;
    pprof) bench_time "$DIR/t" "$SWPROF" report "$REC" -f pprof -o "$DIR/$WORKLOAD-$SIZE.new.pb.gz" ;;
    old_pprof) bench_time "$DIR/t" "$OLD" report "$REC" -f pprof -o "$DIR/$WORKLOAD-$SIZE.old.pb.gz" ;;
    perf_annotate) bench_time "$DIR/t" perf annotate --stdio -i "$DATA" -s "$SYMBOL" ;;
  esac
}

for key in "${ORDER[@]}"; do : > "$DIR/annotate-$WORKLOAD-$key.times"; done
for round in $(seq "$ROUNDS"); do
  for key in "${ORDER[@]}"; do run_one "$key" >> "$DIR/annotate-$WORKLOAD-$key.times"; done
  log "round $round of $ROUNDS"
done

col_median() { awk -v c="$2" '{print $c}' "$1" | median; }
REPORT_S=$(col_median "$DIR/annotate-$WORKLOAD-report.times" 1)
{
  echo "| $WORKLOAD $SIZE ($(swprof_sample_count "$SWPROF" "$REC") samples) | wall s | CPU s | peak RSS | vs report (wall) | file |"
  echo "|---|---|---|---|---|---|"
  for key in "${ORDER[@]}"; do
    f="$DIR/annotate-$WORKLOAD-$key.times"
    wall=$(col_median "$f" 1)
    size=""
    [ "$key" = pprof ] && size=$(stat -c %s "$DIR/$WORKLOAD-$SIZE.new.pb.gz")
    [ "$key" = old_pprof ] && size=$(stat -c %s "$DIR/$WORKLOAD-$SIZE.old.pb.gz")
    printf '| %s | %.3f | %.2f | %d MB | %.2f× | %s |\n' "${NAME[$key]}" "$wall" "$(col_median "$f" 2)" \
      "$(( $(col_median "$f" 3) / 1024 ))" "$(awk -v a="$wall" -v b="$REPORT_S" 'BEGIN {print a / b}')" \
      "${size:+$size bytes}"
  done
} | tee "$DIR/annotate-$WORKLOAD-$SIZE.md"
