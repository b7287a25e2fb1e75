"""The pixel sizes an image file declares, read from its header without decoding anything.

`declared_sizes(path)` gives the format and (width, height) for each frame of a PNG (IHDR), a JPEG (the first SOF
marker) or a TIFF (every IFD of the chain, classic and BigTIFF), and None for other formats (PIL's
lazy open reads their size, still without decoding). A decompression bomb is refused on these
numbers before a single pixel is allocated. Malformed headers raise `HeaderError`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

MAX_FRAMES = 100_000  # IFDs walked in a TIFF; a loop or a longer chain is malformed
MAX_ENTRIES = 4096  # tags in one IFD; real files have a few dozen
_JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
_JPEG_BARE = {0x01, *range(0xD0, 0xD9)}  # markers without a length field


class HeaderError(ValueError):
    """The header is cut short or inconsistent."""


def _read(f: BinaryIO, size: int) -> bytes:
    data = f.read(size)
    if len(data) != size:
        raise HeaderError("the header is cut short")
    return data


def _png(f: BinaryIO) -> list[tuple[int, int]]:
    length, kind = struct.unpack(">I4s", _read(f, 8))
    if kind != b"IHDR" or length < 8:
        raise HeaderError("the PNG has no IHDR chunk first")
    width, height = struct.unpack(">II", _read(f, 8))
    return [(width, height)]


def _jpeg(f: BinaryIO) -> list[tuple[int, int]]:
    while True:
        byte = _read(f, 1)[0]
        if byte != 0xFF:
            raise HeaderError("a JPEG marker was expected")
        marker = _read(f, 1)[0]
        while marker == 0xFF:  # fill bytes
            marker = _read(f, 1)[0]
        if marker in _JPEG_BARE:
            continue
        if marker == 0xD9:
            raise HeaderError("the JPEG ends before its frame header")
        (length,) = struct.unpack(">H", _read(f, 2))
        if length < 2:
            raise HeaderError("a JPEG segment has a bad length")
        if marker in _JPEG_SOF:
            _precision, height, width = struct.unpack(">BHH", _read(f, 5))
            return [(width, height)]
        f.seek(length - 2, 1)


def _tiff(f: BinaryIO, order: str, big: bool) -> list[tuple[int, int]]:
    if big:
        offset_size, _zero = struct.unpack(order + "HH", _read(f, 4))
        if offset_size != 8:
            raise HeaderError("the BigTIFF header is malformed")
    count_fmt, entry_size, offset_fmt = (
        (order + "Q", 20, order + "Q") if big else (order + "H", 12, order + "I")
    )
    (offset,) = struct.unpack(offset_fmt, _read(f, struct.calcsize(offset_fmt)))
    sizes: list[tuple[int, int]] = []
    seen: set[int] = set()
    while offset and len(sizes) < MAX_FRAMES:
        if offset in seen:
            raise HeaderError("the TIFF's page chain loops")
        seen.add(offset)
        f.seek(offset)
        (entries,) = struct.unpack(count_fmt, _read(f, struct.calcsize(count_fmt)))
        if entries > MAX_ENTRIES:  # read() would allocate the claimed table before failing
            raise HeaderError("a TIFF page claims too many tags")
        table = _read(f, entries * entry_size)
        found: dict[int, int] = {}
        for i in range(entries):
            entry = table[i * entry_size : (i + 1) * entry_size]
            tag, kind = struct.unpack(order + "HH", entry[:4])
            if tag in (256, 257):  # ImageWidth, ImageLength: SHORT, LONG or LONG8, left-justified
                value = entry[12:] if big else entry[8:]
                fmt = {3: "H", 4: "I", 16: "Q"}.get(kind)
                if fmt is None:
                    raise HeaderError("a TIFF image size has a bad type")
                found[tag] = struct.unpack(order + fmt, value[: struct.calcsize(fmt)])[0]
        if 256 not in found or 257 not in found:
            raise HeaderError("a TIFF page has no width or height")
        sizes.append((found[256], found[257]))
        (offset,) = struct.unpack(offset_fmt, _read(f, struct.calcsize(offset_fmt)))
    return sizes


@dataclass(frozen=True)
class Declared:
    format: str  # "PNG", "JPEG" or "TIFF"
    sizes: tuple[tuple[int, int], ...]  # (width, height) of each frame


def declared_sizes(path: Path) -> Declared | None:
    """The frame sizes the header declares; None for a format not read here."""
    with path.open("rb") as f:
        head = f.read(8)
        if head.startswith(b"\x89PNG\r\n\x1a\n"):
            return Declared("PNG", tuple(_png(f)))
        if head.startswith(b"\xff\xd8"):
            f.seek(2)
            return Declared("JPEG", tuple(_jpeg(f)))
        for order, mark in (("<", b"II"), (">", b"MM")):
            if head[:2] == mark and len(head) >= 4:
                (magic,) = struct.unpack(order + "H", head[2:4])
                if magic in (42, 43):
                    f.seek(4)
                    return Declared("TIFF", tuple(_tiff(f, order, big=magic == 43)))
    return None
