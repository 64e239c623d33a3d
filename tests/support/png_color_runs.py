#!/usr/bin/env python3
"""How often the colour changes along the rows of a screenshot:
png_color_runs.py PNG Y0 Y1 MIN_RUN

Reads an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium's --screenshot
writes; PNG spec section 9 for the filters) and, for every row y in [Y0, Y1),
splits it into runs of one exact colour, keeps the runs at least MIN_RUN
pixels long (drops borders, text and antialiasing) and counts the changes of
colour between consecutive kept runs. Prints the largest count over the
rows, then that row's kept colours in order, as JSON.
"""
import json
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace:
        sys.exit(f"{path}: depth {depth}, colour type {color}, interlace {interlace} not handled")
    return width, height, 3 if color == 2 else 4, zlib.decompress(idat)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def rows(width, height, bpp, raw):
    stride = width * bpp
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + (0, a, b, (a + b) // 2, paeth(a, b, c))[kind]) & 0xFF
        yield y, [tuple(line[x * bpp:x * bpp + 3]) for x in range(width)]
        prev = line


def kept_runs(pixels, min_run):
    runs, start = [], 0
    for x in range(1, len(pixels) + 1):
        if x == len(pixels) or pixels[x] != pixels[start]:
            if x - start >= min_run:
                runs.append(pixels[start])
            start = x
    return runs


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    path, y0, y1, min_run = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    best, best_runs = -1, []
    for y, pixels in rows(*read_png(path)):
        if y >= y1:
            break
        if y < y0:
            continue
        runs = kept_runs(pixels, min_run)
        changes = sum(1 for a, b in zip(runs, runs[1:]) if a != b)
        if changes > best:
            best, best_runs = changes, runs
    print(json.dumps({"changes": best, "colors": ["#%02x%02x%02x" % c for c in best_runs]}))


if __name__ == "__main__":
    main()
