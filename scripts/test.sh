#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test with ctest.
#   scripts/test.sh                 normal build in build/
#   SWPROF_SANITIZE=1 scripts/test.sh   ASan+UBSan build in build-asan/
#   SWPROF_FUZZ_SECONDS=N scripts/test.sh   then scripts/fuzz.sh N (every fuzz target for N s)
# Every run replays each fuzz target's corpus and crash regressions in ctest
# ("fuzz replay: <target>"); live fuzzing builds the library a third time
# (clang) and finds new inputs at random, so it is asked for, not a gate.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ "${SWPROF_SANITIZE:-0}" = "1" ]; then
  export SWPROF_BUILD_DIR=build-asan
  # Unoptimized: builds much faster, and the sanitizers see every access.
  SWPROF_BUILD_TYPE=Debug scripts/build.sh -DSWPROF_SANITIZE=ON -DSWPROF_BUILD_BENCH=OFF
else
  scripts/build.sh
fi
(cd "${SWPROF_BUILD_DIR:-build}" && ctest --output-on-failure -j "$(nproc)" --timeout 300)
if [ "${SWPROF_FUZZ_SECONDS:-0}" != "0" ]; then
  # Every parser's fuzz target for N s (clang + libFuzzer, build-fuzz/).
  scripts/fuzz.sh "$SWPROF_FUZZ_SECONDS"
fi
