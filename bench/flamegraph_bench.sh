#!/usr/bin/env bash
# Flame graph cost on synthetic profiles: page size, write time, and the
# page's own load / layout / draw / search / zoom / hover times in headless
# Chromium; then folded-stack reading speed; then pages of recordings of N
# samples with their time order (--samples N).
#
#   bench/flamegraph_bench.sh [FRAMES...] [--samples N]...
#       (default: 10000 100000 300000 --samples 30000 --samples 300000)
#
# Needs a build (scripts/build.sh) and chromium (scripts/setup.sh). Prints
# Markdown tables (paste into bench/RESULTS.md). Set
# FLAMEGRAPH_KEEP=DIR to keep the pages for a look in a browser.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${SWPROF_BUILD_DIR:-build}"
if [ $# -eq 0 ]; then set -- 10000 100000 300000 --samples 30000 --samples 300000; fi
cmake --build "$BUILD" -j 2 --target swprof_flamegraph_bench >/dev/null
keep=()
if [ -n "${FLAMEGRAPH_KEEP:-}" ]; then keep=(--keep "$FLAMEGRAPH_KEEP"); fi
"$BUILD/bench/swprof_flamegraph_bench" "${keep[@]}" "$@"
