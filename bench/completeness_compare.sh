#!/usr/bin/env bash
# Stack completeness, swprof vs perf, on real programs: each workload is
# recorded by both tools at the same rate and stack size (swprof record
# --stack-size; perf record --call-graph dwarf,SIZE), and both tools' script
# output is read by bench/outermost.py with one rule for both (a stack is
# complete when it reaches a process or thread entry). Also prints the
# recording sizes.
#
#   bench/completeness_compare.sh [FREQ] [STACK_BYTES]
#
# Workloads: xz, g++ compiling one of swprof's files, clang++ compiling a
# template-heavy file (deep stacks: bench/template_heavy.cpp), python3, node (a JIT:
# V8's code has no unwind info), and chromium headless when installed (a
# 300 MB binary built with frame pointers and little CFI, many threads and
# processes), x264 encoding and ffmpeg decoding H.264 when installed
# (hand-written asm without CFI). Set DETAIL=1 to list the outermost frames
# of incomplete stacks, ONLY="x264 ffmpeg-h264" to run just those.
set -euo pipefail
cd "$(dirname "$0")/.."
FREQ="${1:-999}"
STACK="${2:-32768}"
SWPROF="${SWPROF:-build/swprof}"
WORK="${BENCH_DIR:-bench/out}"
mkdir -p "$WORK"
. bench/common.sh
input=$(bench_input "$WORK")
cat > "$WORK/completeness.py" <<'PY'
import hashlib, json, re
d = {("key%d" % i): hashlib.sha256(b"%d" % i).hexdigest() for i in range(200000)}
print(len(re.findall(r"[a-f]{4}", json.dumps(d))))
PY

declare -a names commands
add() { names+=("$1"); commands+=("$2"); }
add xz "xz -9 -T1 -c $input"
add g++ "g++ -O2 -I. -c output/text_report.cpp -o $WORK/completeness.o"
add clang++ "clang++ -std=c++20 -O2 -c bench/template_heavy.cpp -o $WORK/template_heavy.o"
add python3 "python3 $WORK/completeness.py"
add node "node -e 'let s = 0; for (let i = 0; i < 3e7; i++) s += Math.sqrt(i); console.log(s)'"
# Hand-written SIMD asm without symbols or CFI (libx264's, libavcodec's).
if command -v x264 > /dev/null && command -v ffmpeg > /dev/null; then
  [ -s "$WORK/asm.y4m" ] || ffmpeg -nostdin -loglevel error -f lavfi -i testsrc2=size=640x360:rate=25 -t 2 \
    -pix_fmt yuv420p "$WORK/asm.y4m"
  [ -s "$WORK/asm.mp4" ] || ffmpeg -nostdin -loglevel error -f lavfi -i testsrc2=size=640x360:rate=25 -t 6 \
    -c:v libx264 -preset ultrafast -threads 1 "$WORK/asm.mp4"
  add x264 "x264 --preset medium --threads 1 --quiet -o $WORK/asm.264 $WORK/asm.y4m"
  add ffmpeg-h264 "ffmpeg -nostdin -loglevel error -threads 1 -stream_loop 3 -i $WORK/asm.mp4 -f null -"
fi
if [ -n "${ONLY:-}" ]; then  # ONLY="x264 ffmpeg-h264": just those workloads
  declare -a keep_names keep_commands
  for i in "${!names[@]}"; do
    if [[ " $ONLY " == *" ${names[$i]} "* ]]; then keep_names+=("${names[$i]}"); keep_commands+=("${commands[$i]}"); fi
  done
  names=("${keep_names[@]}"); commands=("${keep_commands[@]}")
fi
if command -v chromium > /dev/null && [ -z "${ONLY:-}" ]; then
  add chromium "chromium --headless --no-sandbox --disable-gpu --dump-dom data:text/html,hello"
fi

printf '%-10s %-24s %-24s %12s %12s\n' workload "swprof complete" "perf complete" "swprof bytes" "perf bytes"
for i in "${!names[@]}"; do
  name=${names[$i]}
  cmd=${commands[$i]}
  sw="$WORK/complete-$name.swprof"
  pf="$WORK/complete-$name.perf.data"
  eval "\"$SWPROF\" record -F $FREQ --stack-size $STACK -o \"$sw\" -- $cmd" > /dev/null 2>&1 || true
  eval "perf record -q -F $FREQ --call-graph dwarf,$STACK -o \"$pf\" -- $cmd" > /dev/null 2>&1 || true
  s=$("$SWPROF" script "$sw" 2> /dev/null | python3 bench/outermost.py)
  p=$(perf script -i "$pf" 2> /dev/null | python3 bench/outermost.py)
  printf '%-10s %-24s %-24s %12s %12s\n' "$name" "$(head -1 <<< "$s")" "$(head -1 <<< "$p")" \
    "$(stat -c %s "$sw")" "$(stat -c %s "$pf")"
  if [ -n "${DETAIL:-}" ]; then
    tail -n +2 <<< "$s" | sed 's/^/    swprof /'
    tail -n +2 <<< "$p" | sed 's/^/    perf   /'
  fi
done
