"""Which parser reads each file type: one table, every parser with one signature.

A parser takes the file and its `ParseOptions` and returns its `ParsedDocument`, or raises a
`ParseError` subclass whose message says what is wrong and whose hint says what to do. A new
format is a module with its `parse_...(path, options)` and one entry in `PARSERS` (and its magic
bytes in detect.py, its extension in detect.SUPPORTED_EXTENSIONS).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

from casetrack.domain import FileType, ParsedDocument
from casetrack.parse.bates import with_bates
from casetrack.parse.docx.parser import parse_docx
from casetrack.parse.email.mbox import refuse_mailbox
from casetrack.parse.email.parser import parse_email
from casetrack.parse.html.parser import parse_html
from casetrack.parse.image.parser import parse_image
from casetrack.parse.options import ParseOptions
from casetrack.parse.pdf.parser import parse_pdf
from casetrack.parse.rtf.parser import parse_rtf
from casetrack.parse.text.parser import parse_markdown, parse_text
from casetrack.parse.transcript.pages import with_transcripts

Parser = Callable[[Path, ParseOptions], ParsedDocument]


def stamped(parser: Parser) -> Parser:
    """A paged format's parser whose pages then get their Bates stamps (bates.py) and, where their
    lines carry printed margin numbers, are read as transcript pages (transcript/; after the
    stamps, so the running headers and footers leave the text)."""

    def parse(path: Path, options: ParseOptions) -> ParsedDocument:
        parsed = parser(path, options)
        return with_transcripts(replace(parsed, pages=tuple(with_bates(parsed.pages))))

    return parse


PARSERS: Mapping[FileType, Parser] = MappingProxyType(
    {
        FileType.PDF: stamped(parse_pdf),
        FileType.IMAGE: stamped(parse_image),
        FileType.DOCX: parse_docx,
        FileType.RTF: parse_rtf,
        FileType.HTML: parse_html,
        FileType.EMAIL: parse_email,
        FileType.MBOX: refuse_mailbox,  # ingest splits a mailbox into its messages
        FileType.TEXT: parse_text,  # a court reporter's .txt is read as a transcript in there
        FileType.MARKDOWN: parse_markdown,
    }
)
