#!/usr/bin/env bash
# Configures and builds swprof into build/ (or $SWPROF_BUILD_DIR).
# Extra arguments go to cmake's configure step, e.g. -DSWPROF_SANITIZE=ON.
# SWPROF_BUILD_TARGETS="swprof swprof_demo" builds only those targets and
# what they need (scripts/demo.sh); by default every target, tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${SWPROF_BUILD_DIR:-build}"
read -ra targets <<< "${SWPROF_BUILD_TARGETS:-}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="${SWPROF_BUILD_TYPE:-RelWithDebInfo}" "$@" >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" ${targets[@]+--target "${targets[@]}"}
