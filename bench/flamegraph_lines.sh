#!/usr/bin/env bash
# What the flame graph page's source lines cost: `swprof flamegraph` of the
# same recordings by OLD_SWPROF (a build without them) and NEW_SWPROF,
# alternating, ROUNDS each; medians of wall s, CPU s and peak RSS, the
# page's size and how many source lines it holds. Prints a Markdown table.
#
#   bench/flamegraph_lines.sh OLD_SWPROF NEW_SWPROF RECORDING... [--rounds 3]
#
# The recordings need binaries with DWARF line tables for lines to show
# (e.g. swprof itself reporting a recording over and over: see RESULTS.md).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/common.sh"
ROUNDS=3
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
[ ${#args[@]} -ge 3 ] || { echo "usage: $0 OLD_SWPROF NEW_SWPROF RECORDING... [--rounds 3]" >&2; exit 2; }
OLD=${args[0]}
NEW=${args[1]}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# lines_on PAGE: the source lines the page's data holds.
lines_on() {
  python3 - "$1" <<'EOF'
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
start = text.index('id="swprof-data">') + len('id="swprof-data">')
data = json.loads(text[start:text.index("</script>", start)])
print(len(data.get("sourceLines", {}).get("frame", [])))
EOF
}

echo "| recording | samples | page MB old → new | source lines | wall s old → new | CPU s old → new | peak RSS MB old → new |"
echo "|---|---|---|---|---|---|---|"
for rec in "${args[@]:2}"; do
  samples=$(swprof_sample_count "$NEW" "$rec")
  for which in old new; do : > "$TMP/$which.times"; done
  for ((round = 0; round < ROUNDS; round++)); do
    for which in old new; do
      bin=$OLD
      [ "$which" = new ] && bin=$NEW
      bench_time "$TMP/time" "$bin" flamegraph "$rec" -o "$TMP/$which.html" >> "$TMP/$which.times"
    done
  done
  col() { awk -v c="$2" '{print $c}' "$TMP/$1.times" | median; }
  mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN {printf "%.2f", b / 1e6}'; }
  rss() { awk -v k="$(col "$1" 3)" 'BEGIN {printf "%.0f", k / 1024}'; }
  echo "| $(basename "$rec") | $samples | $(mb "$TMP/old.html") → $(mb "$TMP/new.html") | $(lines_on "$TMP/new.html") |" \
       "$(col old 1) → $(col new 1) | $(col old 2) → $(col new 2) | $(rss old) → $(rss new) |"
done
