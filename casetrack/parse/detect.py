"""Decide what kind of document a file is, from its bytes first and its name second.

Users rename files, e-mail systems strip extensions and scanners write `.pdf` files that are
really TIFFs, so the extension is only a tie-breaker (TXT vs MD) and a hint for error
messages. Every rejection says what the file looks like and what to do about it.
"""

from __future__ import annotations

import logging
import re
import unicodedata
import zipfile
from pathlib import Path

from casetrack.domain import FileType
from casetrack.domain.document import READABLE_TYPES
from casetrack.errors import (
    CorruptFileError,
    EmptyFileError,
    EncryptedFileError,
    ParseError,
    UnsupportedFileError,
)
from casetrack.parse.email.sniff import MAIL_EXTENSIONS, mail_type
from casetrack.parse.ole2 import OLE_MAGIC, ole_stream_names
from casetrack.parse.rtf.tokens import RTF_START
from casetrack.parse.textcodec import bom_encoding, decode_sample
from casetrack.parse.zip_limits import check_package, read_head

logger = logging.getLogger(__name__)

SUPPORTED_EXTENSIONS: frozenset[str] = frozenset(
    {
        ".pdf",
        ".docx",
        ".txt",
        ".text",
        ".md",
        ".markdown",
        ".rtf",
        ".html",
        ".htm",
        ".xhtml",
        ".png",
        ".jpg",
        ".jpeg",
        ".tif",
        ".tiff",
        ".eml",
        ".msg",
        ".mbox",
    }
)

MARKDOWN_EXTENSIONS: frozenset[str] = frozenset({".md", ".markdown"})
HTML_EXTENSIONS: frozenset[str] = frozenset({".html", ".htm", ".xhtml"})

_SUPPORTED_SENTENCE = f"CaseTrack reads {READABLE_TYPES}."
_CONVERT_HINT = "Convert it to PDF or DOCX and ingest that."
_NOT_MAIL_HINT = (
    "Save the message again from the mail program (Save As, or Download as .eml) and ingest that copy."
)

# Enough to see past a PDF's leading junk, an OLE header and a text sample's character mix.
_SNIFF_BYTES = 64 * 1024
# PDF readers accept `%PDF-` anywhere in the first KiB (mail gateways and some scanners
# prepend headers), so we do too.
_PDF_WINDOW = 1024

_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")

# Share of characters that may be control/unassigned/undecodable in something we call text.
_MAX_BAD_CHAR_RATIO = 0.02

_WORD_CONTENT_TYPES = (
    "wordprocessingml.document.main+xml",
    "wordprocessingml.template.main+xml",
    "ms-word.document.macroenabled.main+xml",
    "ms-word.template.macroenabledtemplate.main+xml",
)


def _bad_char_ratio(text: str) -> float:
    if not text:
        return 0.0
    bad = 0
    for ch in text:
        if ch in "\t\n\r\f\v":
            continue
        if ch == "\ufffd" or unicodedata.category(ch) in ("Cc", "Cn", "Cs"):
            bad += 1
    return bad / len(text)


# --------------------------------------------------------------------------------------------
# Containers: ZIP (OOXML, ODF, plain archives) and OLE2 (legacy Office, encrypted OOXML)
# --------------------------------------------------------------------------------------------


def _classify_zip(path: Path) -> FileType:
    name = path.name
    try:
        with zipfile.ZipFile(path) as zf:
            check_package(zf, name)  # a decompression bomb is refused before anything is inflated
            names = set(zf.namelist())
            content_types = ""
            if "[Content_Types].xml" in names:
                content_types = (
                    read_head(zf, "[Content_Types].xml", 200_000).decode("utf-8", "replace").lower()
                )
            mimetype = ""
            if "mimetype" in names:
                mimetype = read_head(zf, "mimetype", 200).decode("ascii", "replace").strip()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as e:
        raise CorruptFileError(
            f"{name} looks like a ZIP-based file (DOCX?) but cannot be opened: {e}.",
            hint="Open it in Word and save it again, then re-ingest it.",
        ) from e

    if "word/document.xml" in names or any(t in content_types for t in _WORD_CONTENT_TYPES):
        return FileType.DOCX
    if "spreadsheetml" in content_types or "xl/workbook.xml" in names:
        what, hint = "an Excel workbook (.xlsx)", "Save or print it as PDF and ingest that."
    elif "presentationml" in content_types or "ppt/presentation.xml" in names:
        what, hint = "a PowerPoint presentation (.pptx)", "Save it as PDF and ingest that."
    elif mimetype == "application/vnd.oasis.opendocument.text":
        what, hint = "an OpenDocument text file (.odt)", "Save it as .docx or PDF and ingest that."
    elif mimetype.startswith("application/vnd.oasis.opendocument"):
        what, hint = "an OpenDocument file", _CONVERT_HINT
    elif mimetype == "application/epub+zip":
        what, hint = "an EPUB e-book", _CONVERT_HINT
    else:
        what, hint = "a ZIP archive", "Extract the archive and ingest the files inside it."
    raise UnsupportedFileError(f"{name}: unsupported file type ({what}). {_SUPPORTED_SENTENCE}", hint=hint)


def _classify_ole(path: Path, head: bytes) -> FileType:
    """EMAIL for an Outlook .msg (email/msg.py reads it); raises for every other OLE2 format,
    saying which one it is."""
    name = path.name
    try:
        # Top level only: an embedded or attached .doc must not make the container a .doc.
        names = set(ole_stream_names(path, top_level_only=True))
    except OSError as e:
        logger.debug("cannot read OLE directory of %s: %s", path, e)
        names = set()
    if not names:
        # Damaged directory: fall back to spotting the stream names in the bytes we have.
        for candidate in (
            "EncryptedPackage",
            "WordDocument",
            "Workbook",
            "PowerPoint Document",
            "__substg1.0_",
        ):
            if candidate.encode("utf-16-le") in head:
                names.add(candidate)

    if "EncryptedPackage" in names:
        raise EncryptedFileError(
            f"{name} is password-protected (encrypted Office file).",
            hint="Open it with its password, save an unprotected copy "
            "(File > Info > Protect Document > Encrypt with Password, clear the password) "
            "and ingest that.",
        )
    if "WordDocument" in names or (not names and path.suffix.lower() in (".doc", ".dot")):
        raise UnsupportedFileError(
            f"{name} is a legacy Word .doc file.",
            hint="Save it as .docx (File > Save As) and ingest that.",
        )
    if "Workbook" in names or "Book" in names:
        what, hint = "a legacy Excel .xls workbook", "Save or print it as PDF and ingest that."
    elif "PowerPoint Document" in names:
        what, hint = "a legacy PowerPoint .ppt file", "Save it as PDF and ingest that."
    elif any(n.startswith("__substg1.0_") or n.startswith("__properties_version1.0") for n in names):
        return FileType.EMAIL
    else:
        what, hint = "an old Microsoft Office (OLE2) file", _CONVERT_HINT
    raise UnsupportedFileError(f"{name}: unsupported file type ({what}). {_SUPPORTED_SENTENCE}", hint=hint)


# --------------------------------------------------------------------------------------------
# Magic numbers
# --------------------------------------------------------------------------------------------

# What browsers sniff as HTML at the start of a text file (after comments and an XML prolog).
_HTML_START = re.compile(
    r"\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.I | re.S
)
_ANY_TAG = re.compile(r"<(?:[a-z][a-z0-9]*|!doctype|!--)[\s>/]", re.I)


def _text_type(text: str, ext: str) -> FileType:
    """TXT, MD or HTML for a file whose bytes are text: an HTML page by its opening tags (saved
    pages lose their extension too), a file named .html by any tag at all."""
    if ext not in MARKDOWN_EXTENSIONS and _HTML_START.match(text):
        return FileType.HTML
    if ext in HTML_EXTENSIONS and _ANY_TAG.search(text):
        return FileType.HTML
    return FileType.MARKDOWN if ext in MARKDOWN_EXTENSIONS else FileType.TEXT


def _is_image(head: bytes) -> bool:
    if head.startswith((b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"II*\x00", b"MM\x00*", b"GIF87a", b"GIF89a")):
        return True
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return True
    # "BM" alone would match text starting with "BM"; the reserved header words must be 0.
    return len(head) >= 26 and head[:2] == b"BM" and head[6:10] == b"\x00\x00\x00\x00"


_UNSUPPORTED_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"MZ", "a Windows program"),
    (b"\x7fELF", "a Linux program"),
    (b"%!PS", "a PostScript file"),
    (b"\x00\x00\x00\x0cjP  ", "a JPEG 2000 image"),
    (b"ID3", "an MP3 audio file"),
    (b"OggS", "an Ogg media file"),
    (b"SQLite format 3\x00", "an SQLite database"),
)


def _looks_like(head: bytes) -> str:
    for magic, what in _UNSUPPORTED_MAGIC:
        if head.startswith(magic):
            return what
    if head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand in (b"heic", b"heix", b"mif1", b"msf1"):
            return "a HEIC image"
        return "an MP4/QuickTime media file"
    return "binary data"


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


# What a file of each extension should be: a known extension whose bytes match nothing is damaged.
_EXPECTED_KIND = {
    ".pdf": "PDF",
    ".docx": "DOCX",
    ".rtf": "RTF",
    ".html": "HTML",
    ".htm": "HTML",
    ".png": "PNG",
    ".jpg": "JPEG",
    ".jpeg": "JPEG",
    ".tif": "TIFF",
    ".tiff": "TIFF",
}


def misnamed(path: Path, found: FileType) -> str | None:
    """A warning when a file's extension names a format its bytes are not, but they read as text
    (a text file named `brief.docx`): it is ingested as the text it is, and the user is told so."""
    expected = _EXPECTED_KIND.get(path.suffix.lower())
    if expected is None or found not in (FileType.TEXT, FileType.MARKDOWN, FileType.HTML):
        return None
    if found is FileType.HTML and expected == "HTML":
        return None
    kind = "an HTML page" if found is FileType.HTML else "plain text"
    return (
        f"{path.name} is not a {expected} file despite its {path.suffix} extension: it holds {kind}, "
        f"ingested as such (its pages and formatting, if it ever had any, are not in it)."
    )


def _mail_or_refuse(name: str, ext: str, head: bytes) -> FileType | None:
    """EMAIL or MBOX for mail; a CorruptFileError for a .eml/.mbox that is not; None otherwise."""
    mail = mail_type(head, ext)
    if mail is None and ext in MAIL_EXTENSIONS:
        raise CorruptFileError(
            f"{name} has a {ext} extension but does not look like an e-mail: it does not start with mail headers "
            "(From:, To:, Date:, Subject:)"
            + (' after a "From " envelope line' if ext == ".mbox" else "")
            + ".",
            hint=_NOT_MAIL_HINT,
        )
    return mail


def detect_file_type(path: Path) -> FileType:
    """The file's type by content (magic bytes), using the extension only to split TXT/MD.

    Raises EmptyFileError, EncryptedFileError, CorruptFileError or UnsupportedFileError
    (all ParseError), each with a hint saying what the user can do.
    """
    name = path.name
    ext = path.suffix.lower()
    size, head = _read_head(path)
    if size == 0 or not head:
        raise EmptyFileError(f"{name} is empty (0 bytes).", hint="Check that the file was copied completely.")
    found = _by_magic(path, head) or _mail_or_refuse(name, ext, head)
    found = found or _as_text(name, ext, head, complete=size <= len(head))
    if found is None:
        raise _unknown(name, ext, head)
    return found


def _read_head(path: Path) -> tuple[int, bytes]:
    """The file's size and its first bytes; a ParseError saying why they cannot be read."""
    name = path.name
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            return size, f.read(_SNIFF_BYTES)
    except FileNotFoundError as e:
        raise ParseError(f"{name} does not exist.", hint="Check the path and try again.") from e
    except IsADirectoryError as e:
        raise ParseError(f"{name} is a folder, not a file.") from e
    except OSError as e:
        raise ParseError(
            f"{name} cannot be read: {e.strerror or e}.", hint="Check the file's permissions."
        ) from e


def _by_magic(path: Path, head: bytes) -> FileType | None:
    """The type the file's magic numbers say; OLE2 files are always refused (`_classify_ole`)."""
    # Magic numbers at offset 0 first: a ZIP that stores a PDF uncompressed has "%PDF-" in
    # its first KiB too.
    if head.startswith(b"%PDF-"):
        return FileType.PDF
    if head.startswith(_ZIP_MAGICS):
        return _classify_zip(path)
    if head.startswith(OLE_MAGIC):
        return _classify_ole(path, head)
    if RTF_START.match(head[:64]):
        return FileType.RTF
    if _is_image(head):
        return FileType.IMAGE
    return FileType.PDF if b"%PDF-" in head[:_PDF_WINDOW] else None


def _as_text(name: str, ext: str, head: bytes, complete: bool) -> FileType | None:
    """TXT, MD or HTML when the bytes read as text (`complete`: `head` is the whole file), None
    when they do not; an EmptyFileError for a file of whitespace only."""
    text = decode_sample(head, complete)
    # NUL bytes mean binary, unless decoding used them up (BOM-less UTF-16) or a BOM vouches.
    if bom_encoding(head) is None and "\x00" in text:
        return None
    if not text.strip():
        if complete:
            raise EmptyFileError(
                f"{name} contains only whitespace.", hint="Check that the file was saved completely."
            )
        # A huge run of leading blanks says nothing about the rest; treat it as text.
        return FileType.MARKDOWN if ext in MARKDOWN_EXTENSIONS else FileType.TEXT
    if _bad_char_ratio(text) > _MAX_BAD_CHAR_RATIO:
        return None
    return _text_type(text.lstrip("\ufeff"), ext)


def _unknown(name: str, ext: str, head: bytes) -> ParseError:
    """The error for bytes that match nothing we read. A known extension means a damaged file
    rather than a foreign format, which calls for a different next step."""
    expected = _EXPECTED_KIND.get(ext)
    what = _looks_like(head)
    if expected is not None and what == "binary data":
        return CorruptFileError(
            f"{name} has a {ext} extension but does not look like a {expected} file "
            "(it may be damaged or incompletely downloaded).",
            hint="Open it in its usual program and save or export it again, then re-ingest it.",
        )
    if ext == ".doc" and what == "binary data":
        what = "not a Word file despite its .doc extension"
    return UnsupportedFileError(
        f"{name}: unsupported file type ({what}). {_SUPPORTED_SENTENCE}", hint=_CONVERT_HINT
    )
