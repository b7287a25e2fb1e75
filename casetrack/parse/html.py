"""HTML pages (statutes from planalto.gov.br, decisions from court sites) as one unpaged Page.

Decoding follows browsers where it matters: a byte-order mark wins, then the page's own
declaration (`<meta charset>`, `<meta http-equiv="Content-Type">`, `<?xml encoding?>`), with
"iso-8859-1" and "us-ascii" read as windows-1252 as every browser does; then the repo's
`textcodec` guess. One departure: a page that declares a legacy code page but is valid UTF-8
with accents is read as UTF-8 (a page re-saved by an editor keeps its old `<meta>`, and accented
UTF-8 is never valid windows-1252 text by accident). The markup is read by `html_reader`.
"""

from __future__ import annotations

import codecs
import logging
import re
from pathlib import Path

from casetrack.domain import FileType, ParsedDocument
from casetrack.errors import EmptyFileError, ParseError
from casetrack.parse.html_reader import HtmlReader
from casetrack.parse.options import ParseOptions
from casetrack.parse.pagebuilder import PageBuilder
from casetrack.parse.revoked import RevokedText, guess_language, language_from_tag
from casetrack.parse.text import nfc
from casetrack.parse.textcodec import DecodedText, decode_bom, decode_bytes

logger = logging.getLogger(__name__)

# Pages put long scripts and comments before their <meta>; browsers look a little further
# than the 1,024 bytes the standard's pre-scan reads, and so do we.
_PRESCAN_BYTES = 16 * 1024
_META_CHARSET = re.compile(rb"<meta\b[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9_:.\-]+)", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"^\s*<\?xml\b[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9_.\-]+)", re.IGNORECASE)
# The WHATWG Encoding Standard's aliases that matter here: all read as windows-1252.
_AS_CP1252 = frozenset({"latin-1", "iso8859-1", "ascii", "cp1252"})
_HTML_LANG = re.compile(r"<html\b[^>]*?\blang\s*=\s*[\"']?([A-Za-z_-]+)", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")


def declared_encoding(data: bytes) -> str | None:
    """The Python codec a page's own declaration names, or None (none, or an unknown label)."""
    head = data[:_PRESCAN_BYTES]
    m = _META_CHARSET.search(head) or _XML_ENCODING.search(head)
    if m is None:
        return None
    label = m.group(1).decode("ascii", "replace").strip().lower()
    try:
        name = codecs.lookup(label).name
    except LookupError:
        logger.debug("unknown charset label %r", label)
        return None
    if name in _AS_CP1252:
        return "cp1252"
    if name.startswith("utf-16") or name.startswith("utf-32"):
        return "utf-8"  # the declaration was readable as ASCII, so the bytes are not UTF-16
    return name


def decode_html(data: bytes) -> DecodedText:
    """A page's bytes as text: BOM, then its declared charset, then `textcodec`'s guess."""
    marked = decode_bom(data)
    if marked is not None:
        return marked
    declared = declared_encoding(data)
    if declared is not None:
        if declared != "utf-8" and not data.isascii():
            try:
                return DecodedText(data.decode("utf-8"), "utf-8", 0)
            except UnicodeDecodeError:
                pass
        try:
            return DecodedText(data.decode(declared), declared, 0)
        except UnicodeDecodeError:
            logger.debug("page declares %s but does not decode as it", declared)
    return decode_bytes(data)


def _language(text: str) -> str:
    m = _HTML_LANG.search(text[:_PRESCAN_BYTES])
    tagged = language_from_tag(m.group(1)) if m else None
    return tagged or guess_language(_TAG.sub(" ", text[:400_000]))


def parse_html(path: Path, options: ParseOptions | None = None) -> ParsedDocument:
    """Parse an HTML file into one unpaged Page: paragraphs from its blocks, lines from `<br>`s."""
    options = options or ParseOptions()
    name = path.name
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ParseError(
            f"{name} cannot be read: {e.strerror or e}.", hint="Check the file's permissions."
        ) from e
    if not data.strip():
        raise EmptyFileError(f"{name} is empty.", hint="Check that the file was saved completely.")
    decoded = decode_html(data)
    del data
    logger.debug("%s decoded as %s", name, decoded.encoding)
    text = nfc(decoded.text)

    revoked = RevokedText(options.keep_revoked, _language(text))
    reader = HtmlReader(revoked)
    reader.feed(text)
    reader.close()

    builder = PageBuilder(None)
    for lines, kind in reader.paragraphs:
        builder.add_paragraph(lines, kind)
    if builder.is_empty:
        raise EmptyFileError(
            f"{name} has no text (an empty page, or one that builds its text with JavaScript).",
            hint="Open it in a browser, save or print it as PDF, and ingest that.",
        )
    warnings: list[str] = []
    if decoded.replaced:
        warnings.append(
            f"{decoded.replaced} undecodable byte sequence(s) replaced with U+FFFD ({decoded.encoding} text)."
        )
    note = revoked.warning()
    if note:
        warnings.append(note)
    return ParsedDocument(
        file_type=FileType.HTML, pages=(builder.build(),), title=reader.title, warnings=tuple(warnings)
    )
