"""Read a PNG into rows of RGB(A) pixels: enough of the format for Chromium's screenshots.

zlib + struct from the standard library (numpy, a hiveai dependency, speeds
up the common row filters): 8-bit RGB or RGBA, not interlaced, all five row
filters (PNG specification, section 9).
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {2: 3, 6: 4}  # colour type -> samples per pixel (RGB, RGBA)


def paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def read_png(path: Path) -> tuple[int, int, int, list[bytes]]:
    """(width, height, channels, rows): each row is the raw samples of one line of pixels."""
    data = Path(path).read_bytes()
    if not data.startswith(SIGNATURE):
        raise ValueError(f"{path}: not a PNG")
    pos, idat, header = len(SIGNATURE), [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in CHANNELS or interlace:
        raise ValueError(f"{path}: only 8-bit RGB/RGBA, non-interlaced PNGs are supported")
    n = CHANNELS[colour]
    raw = zlib.decompress(b"".join(idat))
    stride = width * n
    rows: list[bytes] = []
    prev = np.zeros(stride, dtype=np.uint8)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=start + 1).copy()
        if kind == 1:  # Sub: a running sum along each channel
            line = (np.cumsum(line.reshape(width, n), axis=0, dtype=np.uint32) & 255).astype(np.uint8).ravel()
        elif kind == 2:  # Up
            line = line + prev  # uint8 arithmetic wraps mod 256, as the filter wants
        elif kind in (3, 4):  # Average and Paeth depend on the byte just decoded: byte by byte
            out, up = bytearray(line.tobytes()), prev.tobytes()
            for i in range(stride):
                a = out[i - n] if i >= n else 0
                b = up[i]
                pred = (a + b) // 2 if kind == 3 else paeth(a, b, up[i - n] if i >= n else 0)
                out[i] = (out[i] + pred) & 255
            line = np.frombuffer(bytes(out), dtype=np.uint8)
        elif kind != 0:
            raise ValueError(f"{path}: bad row filter {kind}")
        rows.append(line.tobytes())
        prev = line
    return width, height, n, rows


def pixel(image: tuple[int, int, int, list[bytes]], x: int, y: int) -> tuple[int, int, int]:
    """RGB of pixel (x, y)."""
    _, _, n, rows = image
    return tuple(rows[y][x * n:x * n + 3])

