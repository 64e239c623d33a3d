#!/usr/bin/env bash
# Installs, builds, profiles the bundled demo program and describes the recording.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
out="${SWPROF_DEMO_DIR:-demo-output}"
mkdir -p "$out"
echo "== swprof record -F 999 -o $out/demo.swprof -- build/tests/programs/swprof_demo"
build/swprof record -F 999 -o "$out/demo.swprof" -- build/tests/programs/swprof_demo
echo
echo "== swprof info $out/demo.swprof"
build/swprof info "$out/demo.swprof"
