#!/usr/bin/env bash
# Builds the fuzz targets (fuzz/, libFuzzer + ASan + UBSan, clang) into
# build-fuzz/ and runs each for SECONDS on a scratch copy of its seed corpus
# and crash regressions, as many targets at a time as there are cores. An
# input that crashes, leaks, times out or runs out of memory is copied to
# fuzz/regressions/<target>/ (commit it with the fix) and the script exits 1
# after running the other targets.
#   scripts/fuzz.sh [SECONDS] [TARGET...]    default: 30 s, every target
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH="${1:-30}"
shift || true
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then TARGETS=(recording recording_index record archive cfi elf json_profile folded function_starts go_pclntab perf_data); fi
# Largest input per target: a few KiB exercise every structure of each format.
declare -A MAX_LEN=([recording]=16384 [recording_index]=4096 [record]=8192 [archive]=16384 [cfi]=8192 [elf]=16384 [json_profile]=16384 [folded]=8192 [function_starts]=16384 [go_pclntab]=32768 [perf_data]=16384)

scripts/setup.sh
BUILD_DIR=build-fuzz
CC=clang CXX=clang++ cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSWPROF_FUZZ=ON \
  -DBUILD_TESTING=OFF -DSWPROF_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target swprof_fuzzers

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# One target's run; its exit status goes to $WORK/<target>/status.
run_target() {
  local t="$1" status=0
  "$BUILD_DIR/fuzz/${t}_fuzz" "$WORK/$t/corpus" -max_total_time="$SECONDS_EACH" -max_len="${MAX_LEN[$t]}" \
    -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$WORK/$t/artifacts/" >"$WORK/$t/log" 2>&1 ||
    status=$?
  echo "$status" >"$WORK/$t/status"
}
# As many targets at a time as there are cores: each still runs SECONDS.
JOBS="$(nproc)"
for t in "${TARGETS[@]}"; do
  if [ -z "${MAX_LEN[$t]:-}" ]; then
    echo "fuzz: unknown target '$t' (targets: ${!MAX_LEN[*]})" >&2
    exit 2
  fi
  mkdir -p "$WORK/$t/corpus" "$WORK/$t/artifacts"
  # Regressions first in the corpus: libFuzzer runs every corpus file before mutating.
  find "fuzz/corpus/$t" "fuzz/regressions/$t" -maxdepth 1 -type f ! -name '.*' -exec cp {} "$WORK/$t/corpus/" \;
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
  run_target "$t" &
done
wait
failed=()
for t in "${TARGETS[@]}"; do
  log="$WORK/$t/log"
  status="$(cat "$WORK/$t/status")"
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  echo "fuzz: $t: ${runs:-?} runs in ${SECONDS_EACH} s, exit status $status" >&2
  findings=("$WORK/$t/artifacts/"*)
  if [ "$status" -ne 0 ] || [ -e "${findings[0]}" ]; then
    failed+=("$t")
    tail -n 40 "$log" >&2
    for f in "${findings[@]}"; do
      [ -e "$f" ] || continue
      cp "$f" "fuzz/regressions/$t/"
      echo "fuzz: $t: kept fuzz/regressions/$t/$(basename "$f")" >&2
    done
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: findings in: ${failed[*]} (inputs in fuzz/regressions/<target>/; replay one with build-fuzz/fuzz/<target>_fuzz FILE)" >&2
  exit 1
fi
echo "fuzz: no findings in ${TARGETS[*]}" >&2
