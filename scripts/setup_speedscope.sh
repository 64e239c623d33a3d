#!/usr/bin/env bash
# Installs the speedscope app (npm package `speedscope`) that the speedscope
# browser test (tests/output/speedscope_browser_test.cpp) loads swprof's
# files into, in a fixed folder outside the project, so the tests run
# offline. Idempotent: returns at once when that version is there.
#   SWPROF_SPEEDSCOPE_PREFIX  where node_modules/ goes (default /opt/swprof-test;
#                             the build's SWPROF_SPEEDSCOPE_DIR must match)
set -euo pipefail

VERSION=1.25.0
PREFIX="${SWPROF_SPEEDSCOPE_PREFIX:-/opt/swprof-test}"
PACKAGE_JSON="$PREFIX/node_modules/speedscope/package.json"

if [ -f "$PACKAGE_JSON" ] && grep -q "\"version\": \"$VERSION\"" "$PACKAGE_JSON" &&
   [ -f "$PREFIX/node_modules/speedscope/dist/release/index.html" ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if ! command -v npm >/dev/null; then
  echo "setup: installing npm" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends npm >/dev/null
fi
echo "setup: installing speedscope $VERSION into $PREFIX" >&2
$SUDO mkdir -p "$PREFIX"
$SUDO npm install --prefix "$PREFIX" --no-audit --no-fund --loglevel=error "speedscope@$VERSION" >/dev/null
