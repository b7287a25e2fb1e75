"""HTML pages (statutes from planalto.gov.br, decisions from court sites) as one unpaged Page:
the bytes decoded as a browser would (html/charset.py), the markup read into paragraphs
(html/reader.py), struck-through text left out or marked in the page's language (revoked.py).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from casetrack.domain import FileType, ParsedDocument
from casetrack.errors import EmptyFileError, ParseError
from casetrack.parse.html.charset import PRESCAN_BYTES, decode_html
from casetrack.parse.html.reader import HtmlReader
from casetrack.parse.options import ParseOptions
from casetrack.parse.pagebuilder import PageBuilder
from casetrack.parse.revoked import RevokedText, guess_language, language_from_tag
from casetrack.parse.textcodec import nfc

logger = logging.getLogger(__name__)

_HTML_LANG = re.compile(r"<html\b[^>]*?\blang\s*=\s*[\"']?([A-Za-z_-]+)", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")


def _language(text: str) -> str:
    m = _HTML_LANG.search(text[:PRESCAN_BYTES])
    tagged = language_from_tag(m.group(1)) if m else None
    return tagged or guess_language(_TAG.sub(" ", text[:400_000]))


def parse_html(path: Path, options: ParseOptions) -> ParsedDocument:
    """Parse an HTML file into one unpaged Page: paragraphs from its blocks, lines from `<br>`s."""
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
