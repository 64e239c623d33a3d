#!/usr/bin/env bash
# One pass over a recording, before and after: the same records in the
# layout of format version 3 (the off-CPU records among the others, no chunk
# index) and of version 4 (build/bench/swprof_recording_convert rewrites
# them), each reported by the swprof before (SWPROF_BEFORE, which reads
# version 3 only) and by this one (SWPROF), rounds alternating: medians of
# wall and CPU seconds and peak RSS, and how the report reads the file
# (bench/recording_reads.sh: opens, read calls, bytes read / file size).
# Checks that the three reports are the same, but for the file's name.
#
#   SWPROF_BEFORE=PATH bench/read_layout_compare.sh [--rounds 5] RECORDING...
#
# RECORDING: version 3 recordings (made by the swprof before). Scratch
# files go to a temporary folder. Prints a Markdown table.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SWPROF="${SWPROF:-$ROOT/build/swprof}"
CONVERT="${CONVERT:-$ROOT/build/bench/swprof_recording_convert}"
: "${SWPROF_BEFORE:?name the swprof to compare with}"
ROUNDS=5
[ "${1:-}" = --rounds ] && { ROUNDS=$2; shift 2; }
. "$ROOT/bench/common.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# report BINARY FILE NAME: the text report, its file name replaced by NAME.
report() { "$1" report "$2" 2> /dev/null | sed "s|$(basename "$2")|$3|g"; }

echo "| recording | bytes | layout, swprof | wall s | CPU s | peak RSS MB | opens | read calls | bytes read / size |"
echo "|---|---|---|---|---|---|---|---|---|"
for rec in "$@"; do
  name=$(basename "$rec" .swprof)
  cp "$rec" "$WORK/v3.swprof"
  "$CONVERT" "$rec" "$WORK/v4.swprof"
  report "$SWPROF_BEFORE" "$WORK/v3.swprof" R > "$WORK/b3.txt"
  report "$SWPROF" "$WORK/v3.swprof" R > "$WORK/a3.txt"
  report "$SWPROF" "$WORK/v4.swprof" R > "$WORK/a4.txt"
  cmp -s "$WORK/b3.txt" "$WORK/a3.txt" && cmp -s "$WORK/b3.txt" "$WORK/a4.txt" ||
    { echo "$name: the reports differ" >&2; exit 1; }
  configs=("b3 $SWPROF_BEFORE v3" "a3 $SWPROF v3" "a4 $SWPROF v4")
  rm -f "$WORK"/*.times
  for _ in $(seq "$ROUNDS"); do
    for c in "${configs[@]}"; do
      read -r key bin layout <<< "$c"
      bench_time "$WORK/time" "$bin" report "$WORK/$layout.swprof" >> "$WORK/$key.times"
    done
  done
  for c in "${configs[@]}"; do
    read -r key bin layout <<< "$c"
    reads=$(SWPROF="$bin" "$ROOT/bench/recording_reads.sh" "$WORK/$layout.swprof")
    label="$layout, $([ "$key" = b3 ] && echo before || echo after)"
    awk -v n="$name" -v b="$(stat -c %s "$WORK/$layout.swprof")" -v l="$label" -v r="$reads" \
        -v w="$(awk '{print $1}' "$WORK/$key.times" | median)" -v c="$(awk '{print $2}' "$WORK/$key.times" | median)" \
        -v m="$(awk '{print $3}' "$WORK/$key.times" | median)" 'BEGIN {
      split(r, f, /[ =]/)
      printf "| %s | %d | %s | %.3f | %.2f | %.1f | %s | %s | %s |\n", n, b, l, w, c, m / 1024, f[2], f[4], f[10] }'
  done
done
