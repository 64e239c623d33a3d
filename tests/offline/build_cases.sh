#!/bin/sh
# Builds the tiny programs of the offline snapshot cases from the sources
# beside them (GCC 12.2, Debian 12). No libc: the cases do not depend on the
# host's. Run from tests/offline/.
set -e
common="-O2 -static -nostdlib -fno-pie -no-pie -fno-optimize-sibling-calls -Wl,-z,noseparate-code"
gcc $common -fasynchronous-unwind-tables -fomit-frame-pointer -o cfi/prog cfi/prog.c
gcc $common -fno-asynchronous-unwind-tables -fno-unwind-tables -fno-omit-frame-pointer -o frame_pointer/prog frame_pointer/prog.c
gcc $common -fno-asynchronous-unwind-tables -fno-unwind-tables -fomit-frame-pointer -o analysis/prog analysis/prog.c
gcc $common -fasynchronous-unwind-tables -fomit-frame-pointer -o signal/prog signal/prog.c
gcc -static -nostdlib -fno-pie -no-pie -Wl,-z,noseparate-code -o bottom/prog bottom/prog.S
