"""Plain text and Markdown: one unpaged Page whose line numbers are the file's own.

A lawyer who reads "ll. 3-5" opens the .txt in any editor and finds those lines, so blank
lines still count even though they do not appear in `Page.text`.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from casetrack.domain import FileType, Page, ParagraphKind, ParsedDocument
from casetrack.errors import EmptyFileError, ParseError
from casetrack.parse.pagebuilder import PageBuilder
from casetrack.parse.textcodec import decode_bytes

logger = logging.getLogger(__name__)


def _is_blank(line: str) -> bool:
    # The same whitespace definition PageBuilder uses when it drops blank lines.
    return not line.split()


def split_lines(text: str) -> list[str]:
    r"""The text's lines as an editor numbers them: only \r\n, \r and \n end a line.

    str.splitlines() would also break at form feeds, \x1c-\x1e, U+0085 and U+2028, which
    would shift every later line number away from what the user's editor shows.
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # a trailing newline ends the last line; it does not start a new one
    return lines


def blank_line_blocks(lines: Sequence[str]) -> Iterator[tuple[int, list[str]]]:
    """(index of first line, lines) of each run of non-blank lines."""
    start = -1
    for i, line in enumerate(lines):
        if _is_blank(line):
            if start >= 0:
                yield start, list(lines[start:i])
                start = -1
        elif start < 0:
            start = i
    if start >= 0:
        yield start, list(lines[start:])


# --------------------------------------------------------------------------------------------
# Markdown: just enough structure to tag headings, list items and tables
# --------------------------------------------------------------------------------------------

_MD_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")
_MD_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+)\s*$")
_MD_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])(?:\s|$)")
_MD_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_MD_TABLE_ROW = re.compile(r"^\s*\|")


def _markdown_paragraphs(
    lines: Sequence[str],
) -> Iterator[tuple[int, list[str], ParagraphKind]]:
    """(index of first line, lines, kind) per Markdown paragraph.

    Blank lines always split paragraphs (the line-number layout needs that); within a block,
    an ATX heading is a paragraph of its own and each list item starts a new one. Inside
    fenced code nothing is interpreted.
    """
    in_fence = False
    for start, block in blank_line_blocks(lines):
        current: list[str] = []
        current_start = start
        current_kind = ParagraphKind.BODY
        for offset, line in enumerate(block):
            index = start + offset
            fence = _MD_FENCE.match(line) is not None
            if in_fence or fence:
                in_fence = in_fence != fence
                new_kind: ParagraphKind | None = ParagraphKind.BODY
            elif _MD_ATX_HEADING.match(line):
                new_kind = ParagraphKind.HEADING
            elif current and current_kind is ParagraphKind.BODY and _MD_SETEXT_UNDERLINE.match(line):
                # "Title" over "=====" or "-----": the whole block so far is the heading.
                current.append(line)
                yield current_start, current, ParagraphKind.HEADING
                current = []
                continue
            elif _MD_LIST_ITEM.match(line):
                new_kind = ParagraphKind.LIST_ITEM
            elif _MD_TABLE_ROW.match(line):
                new_kind = ParagraphKind.TABLE
            else:
                new_kind = None  # plain text continues whatever paragraph is open

            starts_new = new_kind is not None and (
                not current
                or new_kind in (ParagraphKind.HEADING, ParagraphKind.LIST_ITEM)
                or new_kind is not current_kind
            )
            if current and current_kind is ParagraphKind.HEADING:
                starts_new = True  # an ATX heading is always one line
            if current and current_kind is ParagraphKind.TABLE and new_kind is not ParagraphKind.TABLE:
                starts_new = True
            if starts_new or not current:
                if current:
                    yield current_start, current, current_kind
                current, current_start = [], index
                current_kind = new_kind or ParagraphKind.BODY
            current.append(line)
        if current:
            yield current_start, current, current_kind


def _text_paragraphs(lines: Sequence[str]) -> Iterator[tuple[int, list[str], ParagraphKind]]:
    for start, block in blank_line_blocks(lines):
        yield start, block, ParagraphKind.BODY


def build_line_numbered_page(paragraphs: Iterable[tuple[int, list[str], ParagraphKind]]) -> Page:
    """One unpaged Page from (0-based first line index, lines, kind) paragraphs."""
    builder = PageBuilder(None)
    for start, lines, kind in paragraphs:
        builder.add_paragraph(lines, kind, first_line_number=start + 1)
    return builder.build()


def nfc(text: str) -> str:
    """NFC-normalise: macOS writes accents decomposed, which a query typed on Windows misses."""
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def parse_text(path: Path, file_type: FileType) -> ParsedDocument:
    """Parse a TXT or MD file into one unpaged Page whose line numbers are the file's."""
    if file_type not in (FileType.TEXT, FileType.MARKDOWN):
        raise ValueError(f"parse_text cannot parse {file_type}")
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
    lines = split_lines(nfc(decoded.text))
    paragraphs = _markdown_paragraphs(lines) if file_type is FileType.MARKDOWN else _text_paragraphs(lines)
    page = build_line_numbered_page(paragraphs)
    if not page.paragraphs:
        raise EmptyFileError(
            f"{name} contains only whitespace.", hint="Check that the file was saved completely."
        )

    title: str | None = None
    if file_type is FileType.MARKDOWN:
        for para in page.paragraphs:
            if para.kind is ParagraphKind.HEADING:
                title = page.text[para.start : para.end].split("\n", 1)[0].lstrip("#").strip() or None
                break
    parsed = ParsedDocument(file_type=file_type, pages=(page,), title=title, warnings=tuple(warnings))
    if file_type is FileType.MARKDOWN:
        return parsed
    # A court reporter's ASCII transcript: its printed page:line numbers (parse/transcript.py),
    # read on the file's own lines, whose indentation tells a page number from a margin number.
    from casetrack.parse.transcript import with_transcripts

    return with_transcripts(parsed, [[line for line in lines if not _is_blank(line)]])
