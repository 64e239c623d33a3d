#!/usr/bin/env bash
# Regenerates the seed corpora in fuzz/corpus/ (fuzz/README.md says what each
# holds). Needs a normal build (scripts/build.sh) for the seed writer, gcc,
# strip and python3.
#   fuzz/make_corpus.sh [BUILD_DIR]     default: build
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${1:-build}"
CORPUS=fuzz/corpus
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

for t in recording recording_index record archive cfi elf json_profile folded function_starts go_pclntab perf_data; do
  rm -rf "${CORPUS:?}/$t"
  mkdir -p "$CORPUS/$t"
done

# recording, recording_index, record, archive: written by the library's writers and encoder.
"$BUILD_DIR/fuzz/seed_recordings" "$CORPUS"

# go_pclntab: the tests' table builder, each layout, with and without section headers.
"$BUILD_DIR/fuzz/go_pclntab_seeds" "$CORPUS/go_pclntab"

# perf_data: the tests' perf.data image builder: dwarf, compressed and -g files.
"$BUILD_DIR/fuzz/perf_data_seeds" "$CORPUS/perf_data"

# elf, cfi: the seed program, small because it has no libc. Three builds give
# .eh_frame with and without frame pointers, and .debug_frame alone.
build_seed() {  # NAME FLAGS...
  local name="$1"
  shift
  gcc -nostdlib -static -fno-stack-protector -fcf-protection=none -Wl,--build-id -Wl,--eh-frame-hdr \
    -Wl,-z,noseparate-code -Wl,-z,norelro -Wl,-n "$@" -o "$WORK/$name" fuzz/seed_program.c
}
build_seed o2 -O2
build_seed o0_frame_pointer -O0 -fno-omit-frame-pointer
build_seed debug_frame -O1 -g -fno-asynchronous-unwind-tables -fno-unwind-tables
cp "$WORK/o2" "$CORPUS/elf/seed_program_O2"
strip -o "$CORPUS/elf/seed_program_O2_stripped" "$WORK/o2"
cp "$WORK/o0_frame_pointer" "$CORPUS/elf/seed_program_O0"
# function_starts: the same ELF images.
cp "$CORPUS"/elf/* "$CORPUS/function_starts/"

# cfi: the three sections of each build, packed as cfi_fuzz.cpp reads them.
pack_cfi() {  # ELF OUT
  python3 - "$1" "$2" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
def header(i):
    name, _type, _flags, addr, off, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
    return name, addr, off, size
strtab_off = header(shstrndx)[2]
sections = {}
for i in range(shnum):
    name, addr, off, size = header(i)
    end = data.index(b"\0", strtab_off + name)
    sections[data[strtab_off + name:end].decode()] = (addr, data[off:off + size])
hdr_addr, hdr = sections.get(".eh_frame_hdr", (0, b""))
eh_addr, eh = sections.get(".eh_frame", (0, b""))
_, debug = sections.get(".debug_frame", (0, b""))
with open(sys.argv[2], "wb") as out:
    out.write(struct.pack("<BQQHH", 3, hdr_addr, eh_addr, len(hdr), len(eh)) + hdr + eh + debug)
PY
}
for name in o2 o0_frame_pointer debug_frame; do pack_cfi "$WORK/$name" "$CORPUS/cfi/$name.bin"; done

# json_profile: profiles of the golden tests.
cp tests/golden/report/profile.json "$CORPUS/json_profile/report_profile.json"
cp tests/golden/diff/base.json "$CORPUS/json_profile/diff_base.json"

# folded: the folded report's golden output, and every annotation and count form.
cp tests/golden/report/expected-modules.folded "$CORPUS/folded/report_modules.folded"
printf '%s\n' 'main;parse;read_line 12' 'main;compute 3.5' '' \
  'app`main;libc.so.6`memcpy_[i];[kernel]`do_syscall_64_[k] 2' \
  'main;guess_[g];jitted_[j];inl_[i]_[g] 0.25' 'main;vmlinux`irq_[k] 1e2' > "$CORPUS/folded/annotations.folded"

chmod 644 "$CORPUS"/elf/*
du -b -s "$CORPUS"/*
