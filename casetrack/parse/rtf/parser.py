r"""RTF to paragraphs: a small tokenizer (rtf/tokens.py) plus a group-state machine (rtf/reader.py).

Covers what legal RTF (Word, WordPad, court systems) actually uses: groups, control words,
\par/\line/\tab, \'hh bytes in the document's code page (or a font's \fcharset),
\uN with \ucN fallback skipping, ignorable destinations {\*...}, tables (\cell/\row),
footnotes, list numbers (\listtext/\pntext), hidden and deleted-revision text. Headers,
footers, font/colour/style tables, pictures, objects' binary data, fields' instructions,
comments and index entries are skipped.

Each \par is a paragraph and each \line a line inside it, as in DOCX; RTF has no rendered
pages, so the result is one unpaged Page.
"""

from __future__ import annotations

import logging
from pathlib import Path

from casetrack.domain import FileType, ParagraphKind, ParsedDocument
from casetrack.errors import CorruptFileError, EmptyFileError, ParseError
from casetrack.parse.options import ParseOptions
from casetrack.parse.pagebuilder import PageBuilder
from casetrack.parse.rtf.reader import RtfReader
from casetrack.parse.textcodec import nfc

logger = logging.getLogger(__name__)


RtfParagraphs = list[tuple[list[str], ParagraphKind]]


def rtf_to_paragraphs(data: bytes, name: str = "document.rtf") -> tuple[RtfParagraphs, str | None, list[str]]:
    """(paragraphs as (lines, kind), title, warnings) of an RTF document, footnotes last.

    Each footnote becomes one paragraph, its own paragraphs becoming lines, prefixed with
    its number ("[1] ...") like the "[1]" left where it is referenced.
    """
    parser = RtfReader(data, name)
    parser.run()
    paragraphs = list(parser.body.paragraphs)
    for note in parser.footnotes:
        lines = [line for note_lines, _ in note.paragraphs for line in note_lines if line.strip()]
        if lines:
            lines[0] = f"[{note.number}] {lines[0]}"
            paragraphs.append((lines, ParagraphKind.FOOTNOTE))
    return paragraphs, parser.title, parser.warnings


def parse_rtf(path: Path, options: ParseOptions) -> ParsedDocument:
    """Parse an RTF file into one unpaged Page (no option applies to RTF)."""
    name = path.name
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ParseError(
            f"{name} cannot be read: {e.strerror or e}.", hint="Check the file's permissions."
        ) from e
    if not data.strip():
        raise EmptyFileError(f"{name} is empty.", hint="Check that the file was copied completely.")
    try:
        paragraphs, title, warnings = rtf_to_paragraphs(data, name)
    except (CorruptFileError, EmptyFileError):
        raise
    except (ValueError, LookupError, IndexError, RecursionError) as e:
        raise CorruptFileError(
            f"{name} is not a valid RTF file ({e}).",
            hint="Open it in Word or WordPad, save it again and re-ingest it.",
        ) from e

    builder = PageBuilder(None)
    for lines, kind in paragraphs:
        builder.add_paragraph([nfc(line) for line in lines], kind)
    if builder.is_empty:
        raise EmptyFileError(f"{name} has no text.", hint="Check that the right file was ingested.")
    for warning in warnings:
        logger.warning("%s", warning)
    return ParsedDocument(
        file_type=FileType.RTF, pages=(builder.build(),), title=title, warnings=tuple(warnings)
    )
