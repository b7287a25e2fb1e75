"""OLE2 directories, as a table: the real .doc, compound files built the way Office lays them
out (big encrypted packages, 4 KiB sectors, nested Outlook storages) and hostile variants.

Callers (`detect._classify_ole`) catch OSError and struct.error only, so anything else
escaping `ole_stream_names` would crash detection of a damaged file.
"""

from __future__ import annotations

import random
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from casetrack.domain import FileType
from casetrack.errors import EncryptedFileError, UnsupportedFileError
from casetrack.parse.detect import detect_file_type
from casetrack.parse.ole2 import OLE_MAGIC, ole_stream_names
from tests.conftest import DATA, require

WORD_DOC = DATA / "legal_docs_us_courts" / "word-doc.doc"
NOSTREAM, ENDOFCHAIN, FATSECT, DIFSECT = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFC


@dataclass
class Node:
    name: str
    kids: list[Node] = field(default_factory=list)
    storage: bool = False
    big: bool = False  # holds the file's payload sectors (an EncryptedPackage, a WordDocument)

    def __post_init__(self) -> None:
        self.storage = self.storage or bool(self.kids)


def _flatten(nodes: list[Node], out: list[Node]) -> None:
    for node in nodes:
        out.append(node)
        _flatten(node.kids, out)


def _tree(sids: list[int], chain: bool) -> tuple[int, dict[int, tuple[int, int]]]:
    """Root sid of the siblings' tree and each one's (left, right): balanced as Office writes
    it, or a right-leaning chain as some other writers do."""
    if chain and sids:
        rights = [*sids[1:], NOSTREAM]
        return sids[0], {s: (NOSTREAM, r) for s, r in zip(sids, rights, strict=True)}
    links: dict[int, tuple[int, int]] = {}

    def build(part: list[int]) -> int:
        if not part:
            return NOSTREAM
        mid = len(part) // 2
        links[part[mid]] = (build(part[:mid]), build(part[mid + 1 :]))
        return part[mid]

    return build(sids), links


def _entry(name: str, kind: int, links: tuple[int, int], child: int, start: int, length: int) -> bytes:
    raw = bytearray(128)
    encoded = name.encode("utf-16-le") + b"\x00\x00"
    raw[: len(encoded)] = encoded
    struct.pack_into("<HBBIII", raw, 0x40, len(encoded), kind, 1, *links, child)
    struct.pack_into("<IQ", raw, 0x74, start, length)
    return bytes(raw)


def _directory(top: list[Node], chain: bool, big_size: int) -> bytes:
    """Root entry first, then every node depth-first, linked into sibling trees."""
    nodes: list[Node] = []
    _flatten(top, nodes)
    sid = {id(n): i + 1 for i, n in enumerate(nodes)}
    root_child, links = _tree([sid[id(n)] for n in top], chain)
    directory = bytearray(_entry("Root Entry", 5, (NOSTREAM, NOSTREAM), root_child, ENDOFCHAIN, 0))
    for node in nodes:  # depth-first, so a storage's kids get their links before they come up
        child, kid_links = _tree([sid[id(k)] for k in node.kids], chain)
        links.update(kid_links)
        if node.storage:
            directory += _entry(node.name, 1, links[sid[id(node)]], child, 0, 0)
        elif node.big:
            directory += _entry(node.name, 2, links[sid[id(node)]], NOSTREAM, 0, big_size)
        else:
            directory += _entry(node.name, 2, links[sid[id(node)]], NOSTREAM, ENDOFCHAIN, 0)
    return bytes(directory)


def build_ole(top: list[Node], shift: int = 9, payload_sectors: int = 8, chain: bool = False) -> bytes:
    """A compound file: payload sectors first, then the directory, then the FAT and DIFAT.

    The payload is at least 4 KiB, so a big stream lives in the FAT, not the mini stream.
    """
    size = 1 << shift
    per = size // 4
    directory = _directory(top, chain, payload_sectors * size)
    n_dir = -(-len(directory) // size)
    n_fat = n_difat = 0
    while True:  # the FAT must also map its own and the DIFAT's sectors
        need_fat = -(-(payload_sectors + n_dir + n_fat + n_difat) // per)
        need_difat = max(0, -(-(need_fat - 109) // (per - 1)))
        if (need_fat, need_difat) == (n_fat, n_difat):
            break
        n_fat, n_difat = need_fat, need_difat
    dir_start, fat_start = payload_sectors, payload_sectors + n_dir
    difat_start = fat_start + n_fat
    fat = [NOSTREAM] * (n_fat * per)
    for start, count in ((0, payload_sectors), (dir_start, n_dir)):
        for s in range(start, start + count):
            fat[s] = s + 1 if s + 1 < start + count else ENDOFCHAIN
    fat[fat_start:difat_start] = [FATSECT] * n_fat
    fat[difat_start : difat_start + n_difat] = [DIFSECT] * n_difat

    fat_sids = list(range(fat_start, difat_start))
    header = bytearray(size)
    header[:8] = OLE_MAGIC
    struct.pack_into("<HHHHH", header, 0x18, 0x3E, 3 if shift == 9 else 4, 0xFFFE, shift, 6)
    counts = (n_dir if shift == 12 else 0, n_fat, dir_start, 0, 4096, ENDOFCHAIN, 0)
    struct.pack_into("<7I", header, 0x28, *counts)
    struct.pack_into("<II", header, 0x44, difat_start if n_difat else ENDOFCHAIN, n_difat)
    struct.pack_into("<109I", header, 0x4C, *(fat_sids[:109] + [NOSTREAM] * (109 - len(fat_sids[:109]))))
    difat = bytearray()
    rest = fat_sids[109:]
    for i in range(n_difat):
        part = rest[i * (per - 1) : (i + 1) * (per - 1)]
        nxt = difat_start + i + 1 if i + 1 < n_difat else ENDOFCHAIN
        difat += struct.pack(f"<{per}I", *(part + [NOSTREAM] * (per - 1 - len(part)) + [nxt]))
    directory += bytes(n_dir * size - len(directory))
    payload = bytes(payload_sectors * size)
    return bytes(header) + payload + directory + struct.pack(f"<{len(fat)}I", *fat) + bytes(difat)


def encrypted_docx() -> list[Node]:
    """The layout of MS-OFFCRYPTO: the data-space storages first, the encrypted package last."""
    return [
        Node("\x06DataSpaces", [
            Node("Version"),
            Node("DataSpaceMap"),
            Node("DataSpaceInfo", [Node("StrongEncryptionDataSpace")]),
            Node("TransformInfo", [Node("StrongEncryptionTransform", [Node("\x06Primary")])]),
        ]),
        Node("EncryptedInfo"),
        Node("EncryptedPackage", big=True),
    ]  # fmt: skip


LEGACY_DOC = [
    Node("WordDocument", big=True),
    Node("1Table"),
    Node("\x05SummaryInformation"),
    Node("\x01CompObj"),
]
EMBEDDED_DOC = [Node("WordDocument"), Node("1Table"), Node("\x01CompObj")]
OUTLOOK_MSG = [
    Node("__substg1.0_0037001F"),
    Node("__properties_version1.0"),
    Node("__recip_version1.0_#00000000", [Node("__substg1.0_3001001F"), Node("__properties_version1.0")]),
    Node("__attach_version1.0_#00000000", [Node("__substg1.0_3701000D", EMBEDDED_DOC)]),
]
MANY_STREAMS = [Node(f"__substg1.0_{i:04X}001F") for i in range(60)] + [Node("WordDocument", big=True)]
# ~7.5 MB: the header's 109 FAT sectors map only the first 6.8 MB, the rest needs the DIFAT.
BIG = 15_000


# name, file bytes, streams that must be listed, what detection must say
BUILT: list[tuple[str, bytes, set[str], type[Exception], str]] = [
    ("legacy.doc", build_ole(LEGACY_DOC), {"WordDocument", "1Table"}, UnsupportedFileError, "legacy Word"),
    ("legacy4k.doc", build_ole(LEGACY_DOC, shift=12), {"WordDocument"}, UnsupportedFileError, "legacy Word"),
    ("secret.docx", build_ole(encrypted_docx()), {"EncryptedPackage"}, EncryptedFileError, "password"),
    ("big-secret.docx", build_ole(encrypted_docx(), payload_sectors=BIG), {"EncryptedPackage"},
     EncryptedFileError, "password"),
    ("secret4k.docx", build_ole(encrypted_docx(), shift=12), {"EncryptedPackage"}, EncryptedFileError, "password"),
    ("book.xls", build_ole([Node("Workbook", big=True), Node("\x05SummaryInformation")]), {"Workbook"},
     UnsupportedFileError, "Excel"),
    ("excel5.xls", build_ole([Node("Book", big=True)]), {"Book"}, UnsupportedFileError, "Excel"),
    ("slides.ppt", build_ole([Node("PowerPoint Document", big=True), Node("Current User")]),
     {"PowerPoint Document"}, UnsupportedFileError, "PowerPoint"),
    ("embedded.xls", build_ole([Node("Workbook", big=True), Node("MBD0001A2B3", EMBEDDED_DOC)]),
     {"Workbook", "WordDocument"}, UnsupportedFileError, "Excel"),
    ("many.doc", build_ole(MANY_STREAMS), {"WordDocument", "__substg1.0_003B001F"}, UnsupportedFileError,
     "legacy Word"),
    ("chained.doc", build_ole(MANY_STREAMS, chain=True), {"WordDocument"}, UnsupportedFileError, "legacy Word"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "data", "streams", "error", "message"), BUILT, ids=[b[0] for b in BUILT])
def test_built_compound_files(
    tmp_path: Path, name: str, data: bytes, streams: set[str], error: type[Exception], message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    assert streams <= set(ole_stream_names(path))
    with pytest.raises(error, match=message):
        detect_file_type(path)


def test_an_outlook_msg_is_detected_as_an_email(tmp_path: Path) -> None:
    path = tmp_path / "mail.msg"
    path.write_bytes(build_ole(OUTLOOK_MSG))
    assert {"__substg1.0_3001001F", "__substg1.0_3701000D"} <= set(ole_stream_names(path))
    assert detect_file_type(path) is FileType.EMAIL


def test_real_word_doc() -> None:
    names = ole_stream_names(require(WORD_DOC))
    assert {"WordDocument", "1Table", "\x05SummaryInformation", "\x01CompObj"} <= set(names)
    with pytest.raises(UnsupportedFileError, match=r"legacy Word \.doc"):
        detect_file_type(WORD_DOC)


def test_plain_files_have_no_streams(tmp_path: Path) -> None:
    assert ole_stream_names(require(DATA / "lener_br" / "raw_text" / "AC1TJAC.txt")) == []
    short = tmp_path / "short.doc"
    short.write_bytes(OLE_MAGIC + bytes(100))
    assert ole_stream_names(short) == []


# --------------------------------------------------------------------------------------------
# Hostile and damaged files: names or OSError / struct.error, never another exception
# --------------------------------------------------------------------------------------------


def _patched(data: bytes, offset: int, fmt: str, *values: int) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, offset, *values)
    return bytes(out)


def _hostile() -> list[object]:
    doc = build_ole(LEGACY_DOC)
    # Layout (512-byte sectors after the 512-byte header): 8 payload, 2 directory, 1 FAT.
    dir_sector, dir_offset, fat_offset = 8, 9 * 512, 11 * 512
    cases = [
        ("truncated-header", doc[:300]),
        ("truncated-after-header", doc[:512]),
        ("truncated-directory", doc[: dir_offset + 64]),
        ("sector-shift-0", _patched(doc, 0x1E, "<H", 0)),
        ("sector-shift-30", _patched(doc, 0x1E, "<H", 30)),
        ("sector-shift-65535", _patched(doc, 0x1E, "<H", 0xFFFF)),
        ("fat-count-huge", _patched(doc, 0x2C, "<I", 0xFFFFFFF0)),
        ("fat-sector-beyond-eof", _patched(doc, 0x4C, "<I", 0x00FFFFFF)),
        ("directory-beyond-eof", _patched(doc, 0x30, "<I", 0x7FFFFFF0)),
        ("directory-chain-loop", _patched(doc, fat_offset + (dir_sector + 1) * 4, "<I", dir_sector)),
        ("difat-loop", _patched(_patched(doc, 0x44, "<I", 0), 0x48, "<I", 5)),
        ("root-is-own-child", _patched(doc, dir_offset + 0x4C, "<I", 0)),
        ("sibling-cycle", _patched(doc, dir_offset + 128 + 0x48, "<I", 1)),
        ("name-length-huge", _patched(doc, dir_offset + 128 + 0x40, "<H", 0xFFFF)),
        ("stream-size-huge", _patched(doc, dir_offset + 128 + 0x78, "<Q", 2**63)),
        (
            "deep-sibling-chain",
            build_ole([Node(f"s{i}") for i in range(3000)] + [Node("WordDocument")], chain=True),
        ),
    ]
    real = WORD_DOC.read_bytes() if WORD_DOC.is_file() else doc
    for seed in range(40):
        rng = random.Random(seed)
        mutant = bytearray(real)
        for _ in range(rng.choice((1, 4, 16))):
            # Most damage that matters is in the header, the FAT or the directory.
            mutant[rng.randrange(min(len(mutant), 4096) if seed % 2 else len(mutant))] = rng.randrange(256)
        cases.append((f"word-doc-mutant-{seed}", bytes(mutant)))
    return [pytest.param(data, id=name) for name, data in cases]


@pytest.mark.parametrize("data", _hostile())
def test_hostile_input_fails_only_as_callers_expect(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "hostile.doc"
    path.write_bytes(data)
    started = time.monotonic()
    try:
        names = ole_stream_names(path)
    except (OSError, struct.error):
        pass
    else:
        assert all(isinstance(n, str) for n in names)
    assert time.monotonic() - started < 5
    with pytest.raises(UnsupportedFileError):  # still named: a .doc, even a broken one
        detect_file_type(path)
