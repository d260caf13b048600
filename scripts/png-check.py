#!/usr/bin/env python3
"""Checks a chart's PNG as a person would at a glance: the size it was drawn at, mostly a
white background yet not blank, the first series colour of psins-plot's palette (Okabe-Ito
blue) present, dark text or axes, and nothing dark at the picture's left and right edges
(text cut off there: a title wider than the chart). Only the standard library (zlib): no imaging package.
Usage: png-check.py FILE.png"""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"png-check: {path}: not a PNG")
    pos, idat, head = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, colour, _, _, interlace = head
    if depth != 8 or colour not in (2, 6) or interlace:
        sys.exit(f"png-check: {path}: 8-bit RGB(A), not interlaced, expected (got depth {depth}, colour type {colour})")
    bpp = 3 if colour == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, [tuple(r[x * bpp:x * bpp + 3]) for r in rows for x in range(w)]


def main():
    path = sys.argv[1]
    w, h, px = pixels(path)
    errors = []
    if (w, h) != (1000, 620):
        errors.append(f"{w}x{h}, not the 1000x620 it was drawn at")
    white = sum(1 for p in px if p == (255, 255, 255)) / len(px)
    blue = sum(1 for p in px if abs(p[0] - 0) < 24 and abs(p[1] - 114) < 24 and abs(p[2] - 178) < 24)
    dark = sum(1 for p in px if max(p) < 80)
    if white > 0.995:
        errors.append(f"blank ({white:.1%} white)")
    if white < 0.3:
        errors.append(f"only {white:.1%} white: not a chart on a white background")
    if blue < 50:
        errors.append(f"the first series' colour is missing ({blue} pixels)")
    if dark < 500:
        errors.append(f"hardly any text or axes ({dark} dark pixels)")
    # The charts keep a margin: a dark pixel in the two outermost columns is drawing cut off.
    cut = [y for y in range(h) for x in (0, 1, w - 2, w - 1) if max(px[y * w + x]) < 80]
    if cut:
        errors.append(f"dark pixels at the left or right edge (rows {min(cut)}-{max(cut)}): text runs off the picture")
    if errors:
        print(f"plot-check: FAILED: {path}: " + "; ".join(errors), file=sys.stderr)
        sys.exit(1)
    print(f"plot-check: {path}: {w}x{h}, {white:.1%} white, {blue} series-colour and {dark} dark pixels", file=sys.stderr)


main()
