"""Decompression bombs against the parsers: peak memory (VmHWM) of parsing each one (issue 30).

Every bomb is made here, small on disk, then parsed by `casetrack.parse.parse_file` in a fresh
Python process of its own (no parse child: the parser's own behaviour, without the 4 GiB cap of
`parse/isolated.py`), which reports its peak RSS, the time and what happened. The zip bombs are
written by hand: one deflate block of `BLOCK` spaces compressed once, repeated (each copy decodes
the same: its back-references stay inside its own output), so a 3 GiB member costs ~3 MiB on disk
and a second to write.

    PYTHONPATH=$PWD .venv/bin/python bench/bombs.py [--gib 3] [--only NAME ...] [--json]

`tests/test_parse_bombs.py` makes the same bombs, smaller, and asserts each is refused in time
and memory.
"""

from __future__ import annotations

import argparse
import functools
import json
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

BLOCK = 1 << 20  # one deflate block's worth of spaces (1 MiB)
GIB = 1 << 30

_CONTENT_TYPES = (
    b'<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
    b'content-types"><Override PartName="/word/document.xml" ContentType="application/'
    b'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_RELS = (
    b'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/'
    b'2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
    b'2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)
_W = b"http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_DOCUMENT = (
    b'<?xml version="1.0"?><w:document xmlns:w="'
    + _W
    + b'"><w:body><w:p><w:r><w:t>Hi</w:t></w:r></w:p></w:body></w:document>'
)


@dataclass(frozen=True)
class Member:
    """A zip member: its bytes, or `size` bytes made of `head` then spaces (the bomb)."""

    name: str
    data: bytes = b""
    size: int = 0  # > 0: a bomb of this many bytes
    head: bytes = b""
    declared: int | None = None  # the size the directory states, when it lies


@functools.lru_cache(maxsize=8)
def _repeated_deflate(
    head: bytes, size: int, check: Callable[[bytes, int], int] = zlib.crc32, fill: bytes = b" "
) -> tuple[bytes, int]:
    """A raw deflate stream of `head` then `fill` bytes up to `size` bytes, and its checksum
    (`check`: CRC-32 for a zip member, Adler-32 for a zlib stream)."""
    block = fill * BLOCK
    first = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = first.compress(head) + first.flush(zlib.Z_FULL_FLUSH)
    body = zlib.compressobj(9, zlib.DEFLATED, -15)
    middle = body.compress(block) + body.flush(zlib.Z_FULL_FLUSH)  # no reference before its start
    count, rest = divmod(size - len(head), BLOCK)
    tail = zlib.compressobj(9, zlib.DEFLATED, -15)
    end = tail.compress(fill * rest) + tail.flush(zlib.Z_FINISH)
    crc = check(head, 0 if check is zlib.crc32 else 1)
    for _ in range(count):
        crc = check(block, crc)
    crc = check(fill * rest, crc)
    return start + middle * count + end, crc


def write_zip(path: Path, members: list[Member]) -> Path:
    """A zip file (deflated members, 32-bit sizes: each under 4 GiB) written byte by byte."""
    out = bytearray()
    central = bytearray()
    for m in members:
        if m.size:
            data, crc = _repeated_deflate(m.head, m.size)
            size = m.size
        else:
            co = zlib.compressobj(9, zlib.DEFLATED, -15)
            data, crc, size = co.compress(m.data) + co.flush(), zlib.crc32(m.data), len(m.data)
        name = m.name.encode()
        offset = len(out)
        size = size if m.declared is None else m.declared
        fields = (20, 0, 8, 0, 0x21, crc, len(data), size, len(name), 0)
        out += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", *fields) + name + data
        central += struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, *fields[:-1], 0, 0, 0, 0, 0, offset)
        central += name
    eocd = struct.pack(
        "<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), len(out), 0
    )
    path.write_bytes(bytes(out + central + eocd))
    return path


def _docx(path: Path, **bomb: Member) -> Path:
    parts = {
        "[Content_Types].xml": Member("[Content_Types].xml", _CONTENT_TYPES),
        "_rels/.rels": Member("_rels/.rels", _RELS),
        "word/document.xml": Member("word/document.xml", _DOCUMENT),
    }
    for member in bomb.values():
        parts[member.name] = member
    return write_zip(path, list(parts.values()))


def docx_content_types(folder: Path, size: int) -> Path:
    """The probe's bomb: `[Content_Types].xml` of `size` bytes (read whole by detection before)."""
    head = _CONTENT_TYPES[: _CONTENT_TYPES.rindex(b"</Types>")] + b"<!--"
    return _docx(folder / "content_types_bomb.docx", m=Member("[Content_Types].xml", size=size, head=head))


def docx_document(folder: Path, size: int) -> Path:
    """`word/document.xml` of `size` bytes: spaces between the body's elements."""
    head = _DOCUMENT[: _DOCUMENT.index(b"<w:p>")]
    return _docx(folder / "document_bomb.docx", m=Member("word/document.xml", size=size, head=head))


def docx_image(folder: Path, size: int) -> Path:
    """A media part of `size` bytes (docx2python reads every image of the package)."""
    return _docx(folder / "media_bomb.docx", m=Member("word/media/image1.png", size=size, head=b"\x89PNG"))


def docx_lying_size(folder: Path, size: int) -> Path:
    """`word/document.xml` that inflates to `size` bytes but whose directory entry says 1 MiB."""
    head = _DOCUMENT[: _DOCUMENT.index(b"<w:p>")]
    bomb = Member("word/document.xml", size=size, head=head, declared=BLOCK)
    return _docx(folder / "lying_size_bomb.docx", m=bomb)


def xlsx_workbook(folder: Path, size: int) -> Path:
    """An XLSX (refused as a type) whose `[Content_Types].xml` is the bomb."""
    head = b'<?xml version="1.0"?><Types xmlns="spreadsheetml"><!--'
    members = [Member("[Content_Types].xml", size=size, head=head), Member("xl/workbook.xml", b"<workbook/>")]
    return write_zip(folder / "workbook_bomb.xlsx", members)


def odt_mimetype(folder: Path, size: int) -> Path:
    """An ODT (refused as a type) whose `mimetype` member is the bomb."""
    members = [Member("mimetype", size=size, head=b"application/vnd.oasis.opendocument.text")]
    return write_zip(folder / "mimetype_bomb.odt", members)


def docx_many_members(folder: Path, size: int) -> Path:
    """Many members, each small but together `size` bytes (the total, not one member, is the bomb)."""
    each = 8 << 20  # small enough that no ratio counts: only the total is over
    members = [Member(f"word/media/p{i}.bin", size=each, head=b"x") for i in range(size // each + 1)]
    return _docx(folder / "many_members_bomb.docx", **{m.name: m for m in members})


def xml_entities(folder: Path, size: int) -> Path:
    """Billion laughs inside `word/document.xml`: ten levels of ten entities (a few KiB)."""
    del size
    lines = [b'<!ENTITY l0 "lollollollollollollollollollol">']
    lines += [b'<!ENTITY l%d "%s">' % (i, b"&l%d;" % (i - 1) * 10) for i in range(1, 10)]
    doctype = b"<!DOCTYPE w:document [" + b"".join(lines) + b"]>"
    xml = _DOCUMENT.replace(b"<w:document", doctype + b"<w:document", 1).replace(b"Hi", b"&l9;")
    return _docx(folder / "entities_bomb.docx", m=Member("word/document.xml", xml))


def xml_quadratic(folder: Path, size: int) -> Path:
    """Quadratic blowup: one 100 KiB entity used many times (no nesting for a limit to catch)."""
    del size
    entity = b'<!DOCTYPE w:document [<!ENTITY a "' + b"A" * 100_000 + b'">]>'
    xml = _DOCUMENT.replace(b"<w:document", entity + b"<w:document", 1).replace(b"Hi", b"&a;" * 20_000)
    return _docx(folder / "quadratic_bomb.docx", m=Member("word/document.xml", xml))


def _png(width: int, height: int, idat: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def _zlib_of_zeros(size: int) -> bytes:
    """A zlib stream of `size` zero bytes (header, repeated deflate blocks, Adler-32)."""
    data, adler = _repeated_deflate(b"", size, zlib.adler32, b"\x00")
    return b"\x78\xda" + data + struct.pack(">I", adler)


def png_pixels(folder: Path, size: int) -> Path:
    """A grey PNG declaring `size` pixels (a square), every row filter 0 and black: ~size/1000 bytes."""
    side = int(size**0.5)
    path = folder / "pixels_bomb.png"
    path.write_bytes(_png(side, side, _zlib_of_zeros(side * (side + 1))))
    return path


def png_under_limit(folder: Path, size: int) -> Path:
    """A PNG just under the 150-megapixel limit (12,000 x 12,000 = 144 MP): decoded, then scaled."""
    del size
    side = 12_000
    path = folder / "under_limit.png"
    path.write_bytes(_png(side, side, _zlib_of_zeros(side * (side + 1))))
    return path


def pdf_stream(folder: Path, size: int) -> Path:
    """A one-page PDF whose content stream inflates to `size` bytes of spaces."""
    data, adler = _repeated_deflate(b"BT /F1 12 Tf 72 720 Td (Hi) Tj ET\n", size, zlib.adler32)
    body = b"\x78\xda" + data + struct.pack(">I", adler)  # a zlib stream: header, deflate data, Adler-32
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(body) + body + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path = folder / "stream_bomb.pdf"
    path.write_bytes(bytes(out))
    return path


BOMBS: dict[str, Callable[[Path, int], Path]] = {
    "docx_content_types": docx_content_types,
    "docx_document": docx_document,
    "docx_image": docx_image,
    "docx_many_members": docx_many_members,
    "docx_lying_size": docx_lying_size,
    "xlsx_workbook": xlsx_workbook,
    "odt_mimetype": odt_mimetype,
    "xml_entities": xml_entities,
    "xml_quadratic": xml_quadratic,
    "png_pixels": png_pixels,
    "png_under_limit": png_under_limit,
    "pdf_stream": pdf_stream,
}

_CHILD = """
import json, resource, sys, time
from pathlib import Path
from casetrack.parse import parse_file
started = time.perf_counter()
try:
    doc = parse_file(Path(sys.argv[1]))
    outcome = f"parsed: {sum(len(p.text) for p in doc.pages)} characters"
except Exception as e:
    outcome = f"{type(e).__name__}: {getattr(e, 'message', None) or e}"
seconds = time.perf_counter() - started
# VmHWM: this process's own high-water mark (ru_maxrss keeps the parent's across fork + exec, so
# a child of a large pytest worker would report the worker's size); ru_maxrss where there is no /proc.
try:
    hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0]
    peak = int(hwm.split()[1]) / 1024
except (OSError, IndexError):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"peak_mb": round(peak), "seconds": round(seconds, 2), "outcome": outcome[:300]}))
"""


def measure(path: Path, timeout: float = 600.0) -> dict[str, object]:
    """Parse `path` in a fresh process: its peak RSS (MB), seconds and outcome."""
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        return {"peak_mb": None, "seconds": None, "outcome": f"exit {proc.returncode}: {proc.stderr[-300:]}"}
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--gib", type=float, default=3.0, help="how big each bomb inflates (GiB)")
    parser.add_argument("--only", nargs="*", default=None, help="bomb names (default: all)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    size = int(args.gib * GIB)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bombs-") as tmp:
        for name, make in BOMBS.items():
            if args.only and name not in args.only:
                continue
            started = time.perf_counter()
            path = make(Path(tmp), size)
            made = time.perf_counter() - started
            result = measure(path)
            rows.append(
                {
                    "bomb": name,
                    "disk_kb": round(path.stat().st_size / 1024),
                    "made_s": round(made, 1),
                    **result,
                }
            )
            path.unlink()
            if not args.json:
                r = rows[-1]
                print(
                    f"{name:20} {r['disk_kb']:>7} KB on disk  peak {r['peak_mb']!s:>6} MB  {r['seconds']!s:>6} s  {r['outcome']}"
                )
    if args.json:
        print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
