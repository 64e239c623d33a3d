#!/usr/bin/env bash
# Installs every package swprof needs to build, test and benchmark.
# Idempotent: when everything is installed it only checks and returns.
set -euo pipefail

PACKAGES=(
  g++ cmake ninja-build pkg-config make
  libunwind-dev libdw-dev libelf-dev libcapstone-dev libre2-dev
  nlohmann-json3-dev libcli11-dev catch2 libzstd-dev libbenchmark-dev
  libdeflate-dev      # decompresses debuginfo sections (symbolize/dwarf_image.cpp)
  liblzma-dev         # bounds a binary's minidebuginfo (.gnu_debugdata, xz) before libdwfl inflates it
  libiberty-dev       # the C++ demangler, with an interface that lets a demangled name be bounded (symbolize/demangle.cpp)
  dwz                 # rewrites test debuginfo as Debian's debug packages are (tests/symbolize/symbolizer_test.cpp)
  linux-perf xz-utils procps bc util-linux time
  chromium            # headless, for the flame graph page tests (tests/output/flamegraph_browser_test.cpp)
  python3-jsonschema  # validates JSON profiles against docs/json-format.schema.json in the tests
  golang-go           # builds the Go test programs (tests/programs/go): pclntab reading and the Go stepper
  clang libclang-rt-14-dev  # the fuzz targets (scripts/fuzz.sh): clang's libFuzzer, ASan and UBSan runtimes
  dpkg-dev man-db     # the .deb's dependencies (dpkg-shlibdeps, scripts/package.sh) and the man page test
  protobuf-compiler libprotobuf-dev  # report -f pprof: protoc compiles output/proto/profile.proto, libprotobuf writes it
                                     # (the tests read it back with golang-go's `go tool pprof`)
  libncurses-dev      # swprof browse's terminal UI (tui/terminal.cpp, ncursesw)
  tmux                # runs swprof browse in a real terminal of the test's own (tests/cli/browse_test.cpp)
  busybox-static      # a stripped static glibc program whose start-up code is named (tests/cli/startup_names_test.cpp)
  musl-tools          # musl-gcc: a stripped static musl program whose start-up code is named (tests/cli/startup_names_test.cpp)
  nasm                # assembles the x86inc-style test program without CFI (tests/programs/known_asm.asm)
  x264 ffmpeg         # hand-written SIMD asm without CFI in real programs: the x264 encode and h264 decode tests (tests/cli/unwind_asm_test.cpp)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# After the packages: the speedscope app for the browser test (npm).
SCRIPTS="$(cd "$(dirname "$0")" && pwd)"
if [ ${#missing[@]} -eq 0 ]; then
  "$SCRIPTS/setup_speedscope.sh"
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
"$SCRIPTS/setup_speedscope.sh"
