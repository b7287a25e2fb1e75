"""A PDF's compressed streams checked before pdfminer reads them: pdfminer inflates a stream
whole (`zlib.decompress`), so a 3 MB page whose content stream inflates to 3 GB of spaces took
6.2 GB of memory and five minutes (bench/bombs.py). Each FlateDecode stream that pdfminer would
inflate (page contents, fonts, object streams: every stream but an image's, which pdfminer never
inflates to read text) is inflated here first, 1 MiB at a time and thrown away, and the file is
refused when one would pass `MAX_STREAM_BYTES`. Encrypted streams cannot be checked (they read
as garbage to zlib) and are left to the parse process's memory cap (parse/isolated.py).
"""

from __future__ import annotations

import mmap
import re
import zlib
from pathlib import Path

from casetrack.errors import PackageTooLargeError

MAX_STREAM_BYTES = 128 * 2**20  # a page's content stream is rarely over 5 MB
_STREAM = re.compile(rb"(?<!end)stream\r?\n")
_OBJ = re.compile(rb"\d+\s+\d+\s+obj\b")
_FLATE = re.compile(rb"/(?:FlateDecode|Fl)\b")
_IMAGE = re.compile(rb"/Subtype\s*/Image\b")
_CHUNK = 1 << 20


def check_streams(path: Path, limit: int = MAX_STREAM_BYTES) -> None:
    """Refuse `path` when one of its FlateDecode streams (images aside) inflates past `limit`."""
    try:
        with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            for match in _STREAM.finditer(data):
                start = match.start()
                objects = list(_OBJ.finditer(data, max(0, start - 4096), start))
                head = data[objects[-1].end() if objects else max(0, start - 4096) : start]
                if _FLATE.search(head) and not _IMAGE.search(head):
                    _check_one(data, match.end(), limit, path.name)
    except (OSError, ValueError):
        return  # empty or unreadable: opening it says what is wrong


def _check_one(data: mmap.mmap, at: int, limit: int, name: str) -> None:
    inflate = zlib.decompressobj()
    total = 0
    while at < len(data) and not inflate.eof:
        pending = data[at : at + _CHUNK]
        at += len(pending)
        while pending:
            try:
                total += len(inflate.decompress(pending, _CHUNK))
            except zlib.error:
                return  # not a zlib stream (encrypted, damaged): pdfminer copes or says so
            if total > limit:
                raise PackageTooLargeError(
                    f"{name} was not read: a stream in it inflates past {limit // 2**20} MB (it may be a "
                    "decompression bomb).",
                    hint="If it is a real document, print it to a new PDF and ingest that.",
                )
            pending = inflate.unconsumed_tail
            if inflate.eof:
                return
