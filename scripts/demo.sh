#!/usr/bin/env bash
# Installs, builds, profiles the bundled demo program, writes its flame graph
# and prints the top of the report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# Only swprof (with its completion and man page, for `cmake --install`) and
# the demo program: scripts/test.sh builds the tests.
SWPROF_BUILD_TARGETS="swprof swprof_shell_files swprof_demo" scripts/build.sh
build="${SWPROF_BUILD_DIR:-build}"
out="${SWPROF_DEMO_DIR:-demo-output}"
mkdir -p "$out"
echo "== swprof record -F 999 -o $out/demo.swprof -- $build/tests/programs/swprof_demo"
"$build/swprof" record -F 999 -o "$out/demo.swprof" -- "$build/tests/programs/swprof_demo"
echo
echo "== swprof flamegraph $out/demo.swprof -o $out/demo.html"
"$build/swprof" flamegraph "$out/demo.swprof" -o "$out/demo.html"
echo
echo "== swprof report $out/demo.swprof (top)"
"$build/swprof" report "$out/demo.swprof" --top 15 2> /dev/null | sed -n '1,/^Calling-context tree/p' | sed '$d'
echo
echo "Open $out/demo.html in a browser for the interactive flame graph;"
echo "'$build/swprof report $out/demo.swprof' gives the whole report."
