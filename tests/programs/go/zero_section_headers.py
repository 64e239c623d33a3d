#!/usr/bin/env python3
"""Copies an ELF64 file with its section header table unlinked (e_shoff,
e_shnum and e_shstrndx zeroed), as a binary stripped of its section headers
looks: only program headers are left, so readers must find things by scanning
the loaded segments. Debian 12's strip has no --strip-section-headers.

usage: zero_section_headers.py IN OUT"""
import shutil
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
shutil.copyfile(src, dst)
shutil.copymode(src, dst)
with open(dst, "r+b") as f:
    head = f.read(64)
    if head[:4] != b"\x7fELF" or head[4] != 2:
        sys.exit(f"{src}: not an ELF64 file")
    f.seek(0x28)
    f.write(struct.pack("<Q", 0))  # e_shoff
    f.seek(0x3C)
    f.write(struct.pack("<HH", 0, 0))  # e_shnum, e_shstrndx
