"""Zip packages (DOCX, and the XLSX, ODT or EPUB that detection opens to name) checked before a
byte of them is inflated: a decompression bomb is refused, not unpacked.

A package is refused when its central directory declares too many members, a member bigger than
`MAX_MEMBER_BYTES`, more than `MAX_TOTAL_BYTES` in all, or a member over `RATIO_FLOOR_BYTES` that
inflates more than `MAX_RATIO` times (real Word XML inflates 5-20 times; 1,000 times is a bomb:
a 3 MB file of 3 GB of spaces). The declared sizes can lie, and `ZipFile.read` inflates all of
a member's compressed data at once before it cuts the result to the declared size (a member
declaring 1 MB inflated 630 MB): so `stream_members` inflates every member once, 1 MiB at a
time, before a parser reads any whole (zipfile stops at the declared size and its CRC check
fails on a member that goes past it), and `read_head` reads the start of a member the same way.

XML parts may not declare a DTD (Office Open XML never does): an entity defined there could
expand a few KiB into gigabytes in the XML parser (`refuse_dtd`).
"""

from __future__ import annotations

import re
import zipfile

from casetrack.errors import PackageTooLargeError

MAX_MEMBERS = 20_000
MAX_MEMBER_BYTES = 256 * 2**20
MAX_TOTAL_BYTES = 1 * 2**30
MAX_RATIO = 200
RATIO_FLOOR_BYTES = 8 * 2**20  # small members may inflate a lot (a page of spaces): only big ones count

_FIX = "If it is a real document, open it in its program, save it again (or print it to PDF) and ingest that."
_DTD = re.compile(rb"<!(?:DOCTYPE|ENTITY)\b", re.I)
_ROOT = re.compile(rb"<[A-Za-z_]")  # the root element's start tag: a DTD can only come before it
_COMMENTS = re.compile(rb"<!--.*?(?:-->|\Z)", re.S)


def _mb(n: int) -> str:
    return f"{n / 2**30:.1f} GB" if n >= 2**30 else f"{n / 2**20:.0f} MB"


def _refuse(name: str, why: str) -> PackageTooLargeError:
    return PackageTooLargeError(
        f"{name} was not unpacked: {why} (it may be a decompression bomb).", hint=_FIX
    )


def check_package(zf: zipfile.ZipFile, name: str) -> None:
    """Refuse `zf` (the file `name`) when its declared sizes or compression ratios are a bomb's."""
    members = zf.infolist()
    if len(members) > MAX_MEMBERS:
        raise _refuse(name, f"it holds {len(members):,} parts, over the limit of {MAX_MEMBERS:,}")
    total = 0
    for info in members:
        size = info.file_size
        if size > MAX_MEMBER_BYTES:
            raise _refuse(
                name,
                f"its part {info.filename} would inflate to {_mb(size)}, over the {_mb(MAX_MEMBER_BYTES)} limit",
            )
        if size > RATIO_FLOOR_BYTES and size > MAX_RATIO * max(info.compress_size, 1):
            ratio = size / max(info.compress_size, 1)
            raise _refuse(
                name,
                f"its part {info.filename} would inflate {ratio:,.0f} times ({_mb(info.compress_size)} to "
                f"{_mb(size)}), over the limit of {MAX_RATIO} times",
            )
        total += size
        if total > MAX_TOTAL_BYTES:
            raise _refuse(name, f"its parts would inflate to more than {_mb(MAX_TOTAL_BYTES)} in all")


def stream_members(zf: zipfile.ZipFile, chunk: int = 2**20) -> None:
    """Inflate every member by streaming, `chunk` bytes at a time, and drop the bytes: a member
    whose data goes past its declared size raises zipfile.BadZipFile (bad CRC) here, in bounded
    memory, instead of in a parser that reads it whole."""
    for info in zf.infolist():
        with zf.open(info) as f:
            while f.read(chunk):
                pass


def read_head(zf: zipfile.ZipFile, member: str, limit: int) -> bytes:
    """The first `limit` bytes of `member`, inflated by streaming (never the whole member)."""
    with zf.open(member) as f:
        return f.read(limit)


def refuse_dtd(zf: zipfile.ZipFile, name: str, probe: int = 64 * 1024) -> None:
    """Refuse a package whose XML parts declare a DTD before their root element (entities)."""
    for info in zf.infolist():
        if not info.filename.lower().endswith((".xml", ".rels")):
            continue
        head = read_head(zf, info.filename, probe)
        # "<!DOCTYPE" cannot be text in XML ("<" is escaped there): anywhere in the head, it is a DTD.
        if _DTD.search(head):
            raise _refuse(name, f"its part {info.filename} declares XML entities, which Word never writes")
        if not _ROOT.search(_COMMENTS.sub(b"", head)) and len(head) == probe:
            # A prolog this long (a huge comment) could hide a DTD past the probe.
            raise _refuse(
                name, f"its part {info.filename} has no XML element in its first {probe // 1024} KB"
            )
