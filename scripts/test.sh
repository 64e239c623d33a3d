#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test with ctest.
#   scripts/test.sh                 normal build in build/
#   SWPROF_SANITIZE=1 scripts/test.sh   ASan+UBSan build in build-asan/, then scripts/fuzz.sh 20
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
if [ "${SWPROF_SANITIZE:-0}" = "1" ]; then
  # Every parser's fuzz target for 20 s (clang + libFuzzer, build-fuzz/).
  scripts/fuzz.sh 20
fi
