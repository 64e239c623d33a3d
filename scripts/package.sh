#!/usr/bin/env bash
# Builds the swprof .deb: a Release build in build-package/ (or
# $SWPROF_PACKAGE_DIR), then cpack (cmake/Install.cmake says what goes in).
# Prints the path of the .deb; install it with
#   sudo apt install ./build-package/swprof_*.deb
# Extra arguments go to cmake's configure step, e.g.
#   scripts/package.sh -DSWPROF_PACKAGE_MAINTAINER="Name <mail@example.org>"
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR="${SWPROF_PACKAGE_DIR:-build-package}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DSWPROF_BUILD_BENCH=OFF "$@" >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target swprof swprof_shell_files
(cd "$BUILD_DIR" && cpack -G DEB >/dev/null)
ls "$PWD/$BUILD_DIR"/swprof_*.deb
