#!/usr/bin/env bash
# swprof browse: the time from its start to its first screen, against
# `swprof report` of the same file. browse runs in an 80x24 window of a tmux
# server of the script's own (its socket in DIR) with a `q` typed ahead, so
# it quits as soon as it has drawn the first screen and reads its first key:
# its run time is the time to the first screen. Alternating, medians of
# ROUNDS: wall s, CPU s (user + system) and peak RSS of each.
#
#   bench/browse_first_screen.sh FILE [DIR] [--rounds 5] [--swprof PATH]
#
# FILE is a recording, perf.data or JSON profile; DIR (default
# bench/out/browse) holds the times and the server's socket. Needs tmux.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/common.sh"

FILE="" DIR="$ROOT/bench/out/browse" ROUNDS=5 SWPROF="${SWPROF:-$ROOT/build/swprof}"
positional=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --swprof) SWPROF=$2; shift 2 ;;
    *) positional+=("$1"); shift ;;
  esac
done
FILE=$(realpath "${positional[0]:?usage: bench/browse_first_screen.sh FILE [DIR] [--rounds N] [--swprof PATH]}")
[ ${#positional[@]} -gt 1 ] && DIR=${positional[1]}
mkdir -p "$DIR"
DIR=$(realpath "$DIR")
SOCKET="$DIR/tmux.socket"
trap 'tmux -S "$SOCKET" kill-server 2> /dev/null || true' EXIT

# browse_time: "wall_s cpu_s peak_rss_kb" of one browse to its first screen.
browse_time() {
  rm -f "$DIR/browse.done"
  tmux -S "$SOCKET" -f /dev/null new-session -d -x 80 -y 24 \
    "LANG=C.UTF-8 /usr/bin/time -f '%U %S %M' -o '$DIR/browse.time' '$SWPROF' browse '$FILE'; touch '$DIR/browse.done'"
  local start=$EPOCHREALTIME
  tmux -S "$SOCKET" send-keys -t 0 q
  while [ ! -e "$DIR/browse.done" ]; do sleep 0.02; done
  local end=$EPOCHREALTIME
  tmux -S "$SOCKET" kill-server 2> /dev/null || true
  awk -v start="$start" -v end="$end" '{printf "%.4f %.2f %s\n", end - start, $1 + $2, $3}' "$DIR/browse.time"
}

: > "$DIR/report.times"
: > "$DIR/browse.times"
for round in $(seq "$ROUNDS"); do
  echo "round $round/$ROUNDS" >&2
  bench_time "$DIR/report.time" "$SWPROF" report "$FILE" >> "$DIR/report.times"
  browse_time >> "$DIR/browse.times"
done

column_median() { awk -v c="$2" '{print $c}' "$1" | median; }
echo "| command | wall s | CPU s | peak RSS |"
echo "|---|---|---|---|"
for what in report browse; do
  t="$DIR/$what.times"
  printf '| swprof %s | %.3f | %.2f | %d MB |\n' "$what" "$(column_median "$t" 1)" "$(column_median "$t" 2)" \
    "$(( $(column_median "$t" 3) / 1024 ))"
done
