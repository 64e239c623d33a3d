#!/usr/bin/env bash
# Adds minidebuginfo to a stripped copy of BINARY, the way Fedora's
# find-debuginfo does: the function symbols that .dynsym lacks, in an ELF
# holding only a symbol table, xz-compressed into a .gnu_debugdata section.
#   make_minidebuginfo.sh BINARY OUT
set -euo pipefail
binary=$1
out=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nm -D "$binary" --format=posix --defined-only | awk '{ print $1 }' | sort > "$work/dynsyms"
nm "$binary" --format=posix --defined-only | awk '{ if ($2 == "T" || $2 == "t" || $2 == "D") print $1 }' | sort > "$work/funcsyms"
comm -13 "$work/dynsyms" "$work/funcsyms" > "$work/keep_symbols"
objcopy --only-keep-debug "$binary" "$work/debug"
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$work/keep_symbols" \
  "$work/debug" "$work/mini_debuginfo"
xz --threads=1 "$work/mini_debuginfo"
objcopy --strip-all "$binary" "$work/stripped"
objcopy --add-section .gnu_debugdata="$work/mini_debuginfo.xz" "$work/stripped" "$out"
