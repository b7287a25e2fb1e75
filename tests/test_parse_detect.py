"""File type detection: magic bytes first, extension second, a next step on every rejection."""

from __future__ import annotations

import random
import shutil
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from casetrack.domain import FileType
from casetrack.errors import (
    CorruptFileError,
    EmptyFileError,
    EncryptedFileError,
    ParseError,
    UnsupportedFileError,
)
from casetrack.parse.detect import SUPPORTED_EXTENSIONS, detect_file_type
from casetrack.parse.textcodec import decode_bytes, decode_text
from tests.conftest import DATA, require

PDF = DATA / "legal_docs_us_courts" / "recap_documents" / "ca9_19.pdf"
DOCX = DATA / "docx" / "mammoth_tests" / "tables.docx"
LENER = DATA / "lener_br" / "raw_text"
IMAGES = DATA / "pdf_robustness" / "py-pdf_sample-files" / "007-imagemagick-images"


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def ole_file(stream_names: list[str], linked: bool = True) -> bytes:
    """A minimal OLE2 compound file whose directory holds the given stream names (up to 3).

    linked=False leaves the entries out of the directory tree, as in a damaged file.
    """
    header = bytearray(512)
    header[:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    struct.pack_into("<HHHHH", header, 0x18, 0x3E, 3, 0xFFFE, 9, 6)
    struct.pack_into("<I", header, 0x2C, 1)  # one FAT sector
    struct.pack_into("<I", header, 0x30, 1)  # directory starts at sector 1
    struct.pack_into("<I", header, 0x38, 4096)
    struct.pack_into("<III", header, 0x3C, 0xFFFFFFFE, 0, 0xFFFFFFFE)
    difat = [0] + [0xFFFFFFFF] * 108
    struct.pack_into("<109I", header, 0x4C, *difat)
    fat = [0xFFFFFFFD, 0xFFFFFFFE] + [0xFFFFFFFF] * 126
    fat_sector = struct.pack("<128I", *fat)
    directory = bytearray()
    names = ["Root Entry", *stream_names][:4]
    for sid, name in enumerate(names):
        entry = bytearray(128)
        encoded = name.encode("utf-16-le") + b"\x00\x00"
        entry[: len(encoded)] = encoded
        struct.pack_into("<H", entry, 0x40, len(encoded))
        entry[0x42] = 5 if name == "Root Entry" else 2
        if linked:  # the root's child is the first stream, each stream's right sibling the next
            right = 0xFFFFFFFF if sid == 0 or sid + 1 == len(names) else sid + 1
            child = 1 if sid == 0 else 0xFFFFFFFF
            struct.pack_into("<III", entry, 0x44, 0xFFFFFFFF, right, child)
            struct.pack_into("<I", entry, 0x74, 0xFFFFFFFE)
        directory += entry
    directory += bytes(512 - len(directory))
    return bytes(header) + fat_sector + bytes(directory)


# --------------------------------------------------------------------------------------------
# Supported types
# --------------------------------------------------------------------------------------------


def test_pdf_by_magic() -> None:
    assert detect_file_type(require(PDF)) is FileType.PDF


def test_pdf_with_wrong_extension(tmp_path: Path) -> None:
    fake = tmp_path / "looks_like_text.txt"
    shutil.copyfile(require(PDF), fake)
    assert detect_file_type(fake) is FileType.PDF


def test_pdf_with_leading_junk_like_readers_accept(tmp_path: Path) -> None:
    data = b"X-Mailer: scanner\r\n\r\n" + require(PDF).read_bytes()
    assert detect_file_type(write(tmp_path, "scan.pdf", data)) is FileType.PDF


def test_pdf_marker_too_far_in_is_not_pdf(tmp_path: Path) -> None:
    # A text that quotes "%PDF-" deep inside is still text.
    data = b"a" * 2000 + b" %PDF-1.4 mentioned in a letter\n"
    assert detect_file_type(write(tmp_path, "letter.txt", data)) is FileType.TEXT


def test_docx_by_content_even_when_named_pdf(tmp_path: Path) -> None:
    assert detect_file_type(require(DOCX)) is FileType.DOCX
    fake = tmp_path / "contract.pdf"
    shutil.copyfile(DOCX, fake)
    assert detect_file_type(fake) is FileType.DOCX


def test_docx_with_renamed_main_part_found_through_content_types() -> None:
    path = require(DATA / "docx" / "docx2python_tests" / "renamed_document_xml.docx")
    assert detect_file_type(path) is FileType.DOCX


def test_rtf(tmp_path: Path) -> None:
    assert detect_file_type(write(tmp_path, "a.rtf", rb"{\rtf1\ansi Hello\par}")) is FileType.RTF
    # Word sometimes saves RTF under a .doc name.
    assert detect_file_type(write(tmp_path, "b.doc", b"\r\n" + rb"{\rtf1 x}")) is FileType.RTF


@pytest.mark.parametrize("name", ["smile.jpg", "smile-lzw.tiff", "smile-deflate.tiff"])
def test_real_images(name: str) -> None:
    assert detect_file_type(require(IMAGES / name)) is FileType.IMAGE


@pytest.mark.parametrize(
    "head",
    [
        b"\x89PNG\r\n\x1a\n" + bytes(32),
        b"GIF89a" + bytes(32),
        b"RIFF\x24\x00\x00\x00WEBPVP8 " + bytes(32),
        b"BM" + struct.pack("<I", 70) + b"\x00\x00\x00\x00" + struct.pack("<I", 54) + bytes(60),
        b"MM\x00*" + bytes(32),
    ],
)
def test_image_magic(tmp_path: Path, head: bytes) -> None:
    assert detect_file_type(write(tmp_path, "scan.bin", head)) is FileType.IMAGE


def test_text_starting_with_bm_is_not_a_bitmap(tmp_path: Path) -> None:
    assert detect_file_type(write(tmp_path, "cars.txt", b"BMW and Audi, invoice 2024\n")) is FileType.TEXT


def test_text_and_markdown_by_extension(tmp_path: Path) -> None:
    src = require(LENER / "AC1TJAC.txt")
    assert detect_file_type(src) is FileType.TEXT
    md = tmp_path / "notes.md"
    shutil.copyfile(src, md)
    assert detect_file_type(md) is FileType.MARKDOWN
    assert detect_file_type(write(tmp_path, "n.markdown", b"# T\n")) is FileType.MARKDOWN
    assert detect_file_type(write(tmp_path, "README", b"no extension at all\n")) is FileType.TEXT


def test_cp1252_and_utf16_text(tmp_path: Path) -> None:
    cp1252 = "Ação de cobrança “indevida” – réu\n".encode("cp1252")
    assert detect_file_type(write(tmp_path, "a.txt", cp1252)) is FileType.TEXT
    utf16 = "Petição inicial\n".encode("utf-16")  # with BOM, full of NUL bytes
    assert detect_file_type(write(tmp_path, "b.txt", utf16)) is FileType.TEXT


def test_real_text_with_stray_control_characters() -> None:
    # This LeNER-Br file carries \x1c and \x1d; `file` calls it "data", but it is text.
    assert detect_file_type(require(LENER / "HC418951PR.txt")) is FileType.TEXT


def test_every_lener_text_is_text() -> None:
    for path in sorted(require(LENER).glob("*.txt")):
        assert detect_file_type(path) is FileType.TEXT, path.name


PETITION = (
    "EXCELENTÍSSIMO SENHOR DOUTOR JUIZ DE DIREITO DA 2ª VARA CÍVEL DA COMARCA DE SÃO PAULO\r\n\r\n"
    "O réu, citado, não apresentou contestação; decretada a revelia, julgo procedente o pedido.\r\n"
)
WINDOWS_ENCODINGS = ("cp1252", "utf-16-le", "utf-16-be")


ALL_ENCODINGS = ("utf-8", "utf-8-sig", "cp1252", "latin-1", "utf-16", "utf-16-le", "utf-16-be", "utf-32")


@pytest.mark.parametrize("encoding", ALL_ENCODINGS)
@pytest.mark.parametrize("text", [PETITION, "AÇÃO PENAL\n", "Réu"], ids=["petition", "heading", "short"])
def test_portuguese_text_in_every_encoding_is_text(tmp_path: Path, text: str, encoding: str) -> None:
    assert detect_file_type(write(tmp_path, "peticao.txt", text.encode(encoding))) is FileType.TEXT


@pytest.mark.parametrize("encoding", WINDOWS_ENCODINGS)
@pytest.mark.parametrize("name", sorted(p.name for p in LENER.glob("*.txt")) if LENER.is_dir() else [])
def test_every_lener_text_is_text_in_windows_encodings(tmp_path: Path, name: str, encoding: str) -> None:
    # Notepad writes "?" for what the code page cannot hold; the big files exceed the sample.
    data = require(LENER / name).read_text("utf-8").encode(encoding, errors="replace")
    if not data.strip():
        pytest.skip("empty file")
    assert detect_file_type(write(tmp_path, name, data)) is FileType.TEXT


def test_utf16_sample_ending_inside_a_surrogate_pair(tmp_path: Path) -> None:
    # The 64 KiB sample ends after the first half of the emoji.
    text = ("Ação de cobrança, réu citado. " * 1100)[:32767] + "\U0001f600 fim\n"
    for encoding in ("utf-16-le", "utf-16-be"):
        assert detect_file_type(write(tmp_path, "a.txt", text.encode(encoding))) is FileType.TEXT


def _binary_junk() -> list[object]:
    rng = random.Random(11)
    cases: list[object] = [
        pytest.param(lambda: rng.randbytes(5000), id="random"),
        pytest.param(lambda: bytes(b for b in rng.randbytes(5000) if b), id="random-no-nul"),
        pytest.param(lambda: bytes(x for b in rng.randbytes(3000) for x in (b, 0)), id="random-utf16le-like"),
        pytest.param(lambda: bytes(x for b in rng.randbytes(3000) for x in (0, b)), id="random-utf16be-like"),
        pytest.param(lambda: bytes(8192), id="all-nul"),
        # As before charset-normalizer: NULs in UTF-8 / cp1252 text mean binary, not UTF-16.
        pytest.param(lambda: PETITION.encode() + bytes(64), id="utf8-text-nul-padded"),
        pytest.param(lambda: PETITION.encode("cp1252") + bytes(64), id="cp1252-text-nul-padded"),
    ]
    # Real binary without its magic number: what a damaged or truncated download leaves.
    for name, skip in (("smile.png", 8), ("smile.jpg", 3), ("smile-lzw.tiff", 4), ("smile-deflate.tiff", 4)):
        cases.append(pytest.param(lambda n=name, s=skip: require(IMAGES / n).read_bytes()[s:], id=name))
    word = DATA / "legal_docs_us_courts" / "word-doc.doc"
    cases.append(pytest.param(lambda: require(word).read_bytes()[8:], id="word-doc-body"))
    return cases


@pytest.mark.parametrize("make", _binary_junk())
def test_binary_junk_is_never_text(tmp_path: Path, make: Callable[[], bytes]) -> None:
    with pytest.raises(UnsupportedFileError, match="binary data"):
        detect_file_type(write(tmp_path, "junk.txt", make()))


# --------------------------------------------------------------------------------------------
# Rejections
# --------------------------------------------------------------------------------------------


def test_empty_and_whitespace_only(tmp_path: Path) -> None:
    with pytest.raises(EmptyFileError) as e:
        detect_file_type(write(tmp_path, "empty.pdf", b""))
    assert "empty.pdf" in str(e.value) and e.value.hint
    with pytest.raises(EmptyFileError):
        detect_file_type(write(tmp_path, "blank.txt", b" \r\n\t\n  "))
    # The real empty file in the LeNER-Br metadata.
    with pytest.raises(EmptyFileError):
        detect_file_type(require(LENER / "metadadosAgRgTSE1_meta.json"))


def test_legacy_doc(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedFileError) as e:
        detect_file_type(write(tmp_path, "old.doc", ole_file(["WordDocument", "1Table"])))
    assert str(e.value).startswith("old.doc is a legacy Word .doc file")
    assert e.value.hint is not None and "Save it as .docx" in e.value.hint


def test_fake_doc_with_only_ole_magic(tmp_path: Path) -> None:
    data = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(1000)
    with pytest.raises(UnsupportedFileError, match=r"legacy Word \.doc"):
        detect_file_type(write(tmp_path, "fake.doc", data))


def test_encrypted_docx(tmp_path: Path) -> None:
    data = ole_file(["EncryptedInfo", "EncryptedPackage", "\x06DataSpaces"])
    with pytest.raises(EncryptedFileError) as e:
        detect_file_type(write(tmp_path, "secret.docx", data))
    assert "secret.docx" in str(e.value)
    assert e.value.hint is not None and "unprotected copy" in e.value.hint


@pytest.mark.parametrize("linked", [True, False], ids=["intact", "unlinked-directory"])
def test_damaged_ole_directory_still_named_from_its_bytes(tmp_path: Path, linked: bool) -> None:
    with pytest.raises(UnsupportedFileError, match=r"legacy Word \.doc"):
        detect_file_type(write(tmp_path, "x.bin", ole_file(["WordDocument", "1Table"], linked=linked)))
    encrypted = ole_file(["EncryptedInfo", "EncryptedPackage"], linked=linked)
    with pytest.raises(EncryptedFileError):
        detect_file_type(write(tmp_path, "y.bin", encrypted))
    with pytest.raises(UnsupportedFileError, match="Excel"):
        detect_file_type(write(tmp_path, "z.bin", ole_file(["Workbook"], linked=linked)))


def test_other_ole_formats_are_named(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedFileError, match="Excel"):
        detect_file_type(write(tmp_path, "a.xls", ole_file(["Workbook"])))
    # an Outlook .msg is an e-mail (parse/email/msg.py reads it)
    assert detect_file_type(write(tmp_path, "m.msg", ole_file(["__substg1.0_0037001F"]))) is FileType.EMAIL


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def test_other_zips(tmp_path: Path) -> None:
    xlsx = make_zip(
        tmp_path / "sheet.xlsx",
        {"[Content_Types].xml": b"<Types>spreadsheetml.sheet.main+xml</Types>", "xl/workbook.xml": b"<x/>"},
    )
    with pytest.raises(UnsupportedFileError, match=r"Excel workbook \(\.xlsx\)"):
        detect_file_type(xlsx)
    odt = make_zip(tmp_path / "a.odt", {"mimetype": b"application/vnd.oasis.opendocument.text"})
    with pytest.raises(UnsupportedFileError, match="OpenDocument"):
        detect_file_type(odt)
    archive = make_zip(tmp_path / "bundle.zip", {"a.pdf": b"%PDF-1.4"})
    with pytest.raises(UnsupportedFileError) as e:
        detect_file_type(archive)
    assert "ZIP archive" in str(e.value) and e.value.hint is not None and "Extract" in e.value.hint


def test_broken_zip_is_corrupt(tmp_path: Path) -> None:
    with pytest.raises(CorruptFileError):
        detect_file_type(write(tmp_path, "broken.docx", b"PK\x03\x04" + bytes(200)))


def test_binary_junk(tmp_path: Path) -> None:
    junk = random.Random(7).randbytes(5000)
    with pytest.raises(UnsupportedFileError) as e:
        detect_file_type(write(tmp_path, "junk.bin", junk))
    message = str(e.value)
    assert message.startswith("junk.bin: unsupported file type (binary data).")
    assert (
        "CaseTrack reads PDF, DOCX, TXT, MD, RTF, HTML, e-mails (.eml, .msg, .mbox) and images (PNG, JPEG, TIFF)."
        in message
    )
    # Short junk has no NUL byte by chance; its control characters still give it away.
    no_nul = bytes(b for b in junk[:300] if b)
    with pytest.raises(UnsupportedFileError):
        detect_file_type(write(tmp_path, "junk2.bin", no_nul))


def test_junk_with_a_document_extension_is_corrupt(tmp_path: Path) -> None:
    junk = random.Random(3).randbytes(3000)
    with pytest.raises(CorruptFileError, match="does not look like a PDF"):
        detect_file_type(write(tmp_path, "contract.pdf", junk))


def test_known_foreign_formats_are_named(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedFileError, match="gzip"):
        detect_file_type(write(tmp_path, "a.pdf", b"\x1f\x8b\x08\x00" + bytes(100)))
    with pytest.raises(UnsupportedFileError, match="Windows program"):
        detect_file_type(write(tmp_path, "setup.exe", b"MZ\x90\x00" + bytes(100)))


def test_missing_file_is_a_parse_error(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="does not exist"):
        detect_file_type(tmp_path / "nope.pdf")


# --------------------------------------------------------------------------------------------
# Decoding and extensions
# --------------------------------------------------------------------------------------------


def test_decode_text_encodings() -> None:
    text = "Ação de cobrança “indevida” – réu"
    assert decode_text(text.encode("utf-8")) == text
    assert decode_text(b"\xef\xbb\xbf" + text.encode("utf-8")) == text
    assert decode_text(text.encode("cp1252")) == text
    assert decode_text(text.encode("utf-16")) == text
    assert decode_text(text.encode("utf-32")) == text
    # 0x81 is undefined in cp1252: latin-1 never fails.
    assert decode_bytes(b"caf\xe9 \x81").encoding == "latin-1"


def test_mostly_utf8_with_a_stray_byte_stays_utf8() -> None:
    data = "Ação, petição, decisão, acórdão".encode() + b" \xff " + b"fim"
    decoded = decode_bytes(data)
    assert decoded.encoding == "utf-8" and decoded.replaced == 1
    assert decoded.text.startswith("Ação, petição")


def test_supported_extensions() -> None:
    assert {
        ".pdf",
        ".docx",
        ".txt",
        ".md",
        ".markdown",
        ".rtf",
        ".png",
        ".jpg",
        ".jpeg",
        ".tif",
        ".tiff",
    } <= (SUPPORTED_EXTENSIONS)
    assert ".doc" not in SUPPORTED_EXTENSIONS
    assert all(ext == ext.lower() and ext.startswith(".") for ext in SUPPORTED_EXTENSIONS)


def test_a_text_file_named_like_another_format_is_read_as_text_with_a_warning(tmp_path: Path) -> None:
    # Issue 30: a text file named .docx was ingested as text without a word.
    from casetrack.parse import parse_file

    fake = tmp_path / "Brief.docx"
    fake.write_text("The motion to dismiss is denied.\n", encoding="utf-8")
    parsed = parse_file(fake)
    assert parsed.file_type is FileType.TEXT and "motion to dismiss" in parsed.pages[0].text
    assert parsed.warnings[0].startswith("Brief.docx is not a DOCX file despite its .docx extension")
    page = tmp_path / "page.pdf"
    page.write_text("<html><body><p>Saved web page</p></body></html>", encoding="utf-8")
    assert "it holds an HTML page" in parse_file(page).warnings[0]
    honest = tmp_path / "notes.txt"
    honest.write_text("Plain notes.\n", encoding="utf-8")
    assert parse_file(honest).warnings == ()
