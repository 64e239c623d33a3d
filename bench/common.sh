# Sourced by the bench scripts.

# bench_input DIR: the path of the xz workload's input in DIR, made on first
# use: half pseudo-random (base64 of a seeded generator, so every run and
# every machine compresses the same bytes), half repetitive text, so xz works
# hard on both.
bench_input() {
  local input="$1/input.bin"
  if [ ! -s "$input" ]; then
    python3 -c '
import base64, random, sys
out = sys.stdout.buffer
out.write(base64.encodebytes(random.Random(15).randbytes(4500000)))
line = b"the quick brown fox jumps over the lazy dog\n"
out.write((line * (6000000 // len(line) + 1))[:6000000])
' > "$input.tmp"
    mv "$input.tmp" "$input"
  fi
  echo "$input"
}

# median: the median of the numbers on stdin, one a line.
median() {
  sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'
}

# swprof_sample_count SWPROF FILE: the samples in a swprof recording.
swprof_sample_count() {
  "$1" info --no-unwind "$2" | awk '/^  total / && !n {print $2; n = 1}'
}

# perf_sample_count FILE: the samples in a perf.data, as perf counts them.
perf_sample_count() {
  perf report --stats -i "$1" 2> /dev/null | awk '/SAMPLE events:/ {print $3; exit}'
}

# bench_time TIMEFILE CMD...: runs CMD (stdout discarded, stderr to
# TIMEFILE.err) and prints "wall_s cpu_s peak_rss_kb": CPU is user + system
# of all threads, the fairer figure on a shared machine. Wall time is taken
# to the microsecond around the run (GNU time's %e has 10 ms steps: a 30 ms
# report would read as 0.03 or 0.04). Fails as CMD fails.
bench_time() {
  local timefile=$1 start end
  shift
  start=$EPOCHREALTIME
  /usr/bin/time -f "%U %S %M" -o "$timefile" "$@" > /dev/null 2> "$timefile.err" || return 1
  end=$EPOCHREALTIME
  awk -v start="$start" -v end="$end" '{printf "%.4f %.2f %s\n", end - start, $1 + $2, $3}' "$timefile"
}
