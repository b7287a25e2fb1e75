"""TXT and MD files into one unpaged Page whose line numbers are the file's own (text/lines.py);
Markdown's headings, list items and tables tagged (text/markdown.py); a court reporter's ASCII
transcript read as one (transcript/).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from casetrack.domain import FileType, Page, ParagraphKind, ParsedDocument
from casetrack.errors import EmptyFileError, ParseError
from casetrack.parse.options import ParseOptions
from casetrack.parse.pagebuilder import PageBuilder
from casetrack.parse.text.lines import blank_line_blocks, is_blank, split_lines
from casetrack.parse.text.markdown import markdown_paragraphs
from casetrack.parse.textcodec import decode_bytes, nfc
from casetrack.parse.transcript.pages import with_transcripts

logger = logging.getLogger(__name__)


def _text_paragraphs(lines: Sequence[str]) -> Iterator[tuple[int, list[str], ParagraphKind]]:
    for start, block in blank_line_blocks(lines):
        yield start, block, ParagraphKind.BODY


def build_line_numbered_page(paragraphs: Iterable[tuple[int, list[str], ParagraphKind]]) -> Page:
    """One unpaged Page from (0-based first line index, lines, kind) paragraphs."""
    builder = PageBuilder(None)
    for start, lines, kind in paragraphs:
        builder.add_paragraph(lines, kind, first_line_number=start + 1)
    return builder.build()


def parse_text(path: Path, options: ParseOptions) -> ParsedDocument:
    """Parse a TXT file into one unpaged Page whose line numbers are the file's; a court reporter's
    ASCII transcript gets its printed page:line numbers (transcript/), read on the file's own
    lines, whose indentation tells a page number from a margin number."""
    lines, warnings = _read_lines(path)
    page = _one_page(path, _text_paragraphs(lines))
    parsed = ParsedDocument(file_type=FileType.TEXT, pages=(page,), warnings=warnings)
    return with_transcripts(parsed, [[line for line in lines if not is_blank(line)]])


def parse_markdown(path: Path, options: ParseOptions) -> ParsedDocument:
    """Parse an MD file into one unpaged Page whose line numbers are the file's, its headings,
    list items and tables tagged; its first heading is the title."""
    lines, warnings = _read_lines(path)
    page = _one_page(path, markdown_paragraphs(lines))
    title: str | None = None
    for para in page.paragraphs:
        if para.kind is ParagraphKind.HEADING:
            title = page.text[para.start : para.end].split("\n", 1)[0].lstrip("#").strip() or None
            break
    return ParsedDocument(file_type=FileType.MARKDOWN, pages=(page,), title=title, warnings=warnings)


def _read_lines(path: Path) -> tuple[list[str], tuple[str, ...]]:
    """The file's lines, decoded (textcodec.py) and NFC-normalised, and the decoding's warning."""
    name = path.name
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ParseError(
            f"{name} cannot be read: {e.strerror or e}.", hint="Check the file's permissions."
        ) from e
    if not data:
        raise EmptyFileError(f"{name} is empty (0 bytes).", hint="Check that the file was copied completely.")

    decoded = decode_bytes(data)
    del data  # a 50 MB file should not be held twice while the page is built
    warnings: list[str] = []
    if decoded.replaced:
        warnings.append(
            f"{decoded.replaced} undecodable byte sequence(s) replaced with U+FFFD ({decoded.encoding} text)."
        )
    logger.debug("%s decoded as %s", name, decoded.encoding)
    # NFC never merges characters across a newline, so line numbers survive it.
    return split_lines(nfc(decoded.text)), tuple(warnings)


def _one_page(path: Path, paragraphs: Iterable[tuple[int, list[str], ParagraphKind]]) -> Page:
    page = build_line_numbered_page(paragraphs)
    if not page.paragraphs:
        raise EmptyFileError(
            f"{path.name} contains only whitespace.", hint="Check that the file was saved completely."
        )
    return page
