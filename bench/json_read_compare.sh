#!/usr/bin/env bash
# Reading a JSON profile: `swprof report` of one JSON profile by two swprof
# binaries, run alternately (so that load from other work falls on both
# alike), with the median and least wall and CPU times and the median peak
# RSS of each. The two reports must be byte-identical.
#
#   bench/json_read_compare.sh OLD_SWPROF NEW_SWPROF PROFILE.json [RUNS]
set -euo pipefail
OLD="$1"
NEW="$2"
PROFILE="$3"
RUNS="${4:-9}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
for _ in $(seq "$RUNS"); do
  for side in old new; do
    bin="$OLD"
    [ "$side" = new ] && bin="$NEW"
    /usr/bin/time -a -o "$WORK/times" -f "$side %e %U %S %M" "$bin" report -f text -o "$WORK/$side.txt" "$PROFILE" 2> /dev/null
  done
done
cmp "$WORK/old.txt" "$WORK/new.txt"
python3 - "$WORK/times" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
for side in ("old", "new"):
    r = [x for x in rows if x[0] == side]
    wall = [float(x[1]) for x in r]
    cpu = [float(x[2]) + float(x[3]) for x in r]
    rss = statistics.median(int(x[4]) for x in r) / 1024
    print(f"{side}: {len(r)} runs, wall median {statistics.median(wall):.2f} s (least {min(wall):.2f}), "
          f"CPU median {statistics.median(cpu):.2f} s (least {min(cpu):.2f}), peak RSS {rss:.0f} MB")
PY
