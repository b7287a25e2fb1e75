"""Parsed documents: pages with the exact character spans of their lines and paragraphs.

Offsets are the backbone of provenance. Every parser produces, per page, one text string
(`Page.text`) plus the exact character spans of its lines and paragraphs inside that string.
Chunks are contiguous character ranges of one page's text, so a chunk's line and paragraph
ranges are derived from its offsets and can never drift from the text it carries.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from enum import StrEnum


class ExtractionMethod(StrEnum):
    NATIVE = "native"  # text layer of a PDF, DOCX XML, plain text
    OCR = "ocr"  # tesseract (ocr/ package)
    NONE = "none"  # nothing usable: the page needs OCR or is blank


class ParagraphKind(StrEnum):
    BODY = "body"
    HEADING = "heading"
    LIST_ITEM = "list_item"
    TABLE = "table"
    FOOTNOTE = "footnote"


class FileType(StrEnum):
    PDF = "pdf"
    DOCX = "docx"
    TEXT = "text"
    MARKDOWN = "markdown"
    RTF = "rtf"
    IMAGE = "image"
    HTML = "html"
    EMAIL = "email"  # an e-mail (.eml, Outlook .msg): headers and body; its attachments become documents of their own
    MBOX = "mbox"  # a mailbox file holding many e-mails: never a document itself, each message is one


# What CaseTrack reads, in the words every refusal and tool description uses.
READABLE_TYPES = "PDF, DOCX, TXT, MD, RTF, HTML, e-mails (.eml, .msg, .mbox) and images (PNG, JPEG, TIFF)"


@dataclass(frozen=True)
class Span:
    """A half-open character range [start, end) into `Page.text` with a 1-based number."""

    number: int
    start: int
    end: int


@dataclass(frozen=True)
class Paragraph(Span):
    kind: ParagraphKind = ParagraphKind.BODY


@dataclass(frozen=True)
class Page:
    """One unit of citation.

    `number` is the 1-based page number for paged formats (PDF, images, DOCX with rendered page
    breaks) and None for formats without pages (TXT, MD, most DOCX). `lines` and `paragraphs`
    are sorted by `start` and lie inside `text`. Line numbers restart at 1 on each page;
    paragraph numbers restart on each page for paged formats and run through the whole
    document otherwise.
    """

    number: int | None
    text: str
    lines: tuple[Span, ...]
    paragraphs: tuple[Paragraph, ...]
    extraction_method: ExtractionMethod = ExtractionMethod.NATIVE
    needs_ocr: bool = False
    ocr_confidence: float | None = None  # OCR'd pages: mean word confidence, 0-100
    line_confidences: tuple[float, ...] = ()  # OCR'd pages: each line's mean word confidence, as `lines`
    bates: str | None = None  # the production stamp read on the page ("ABC0001234")
    # Transcripts (parse/transcript/): the printed transcript page of each line, as `lines`, whose
    # numbers are then the printed margin numbers; empty on other pages. A condensed sheet holds
    # four transcript pages, a .txt transcript all of them.
    line_pages: tuple[int, ...] = ()

    @property
    def transcript_page(self) -> int | None:
        """The printed transcript page of the page's first line (None: not a transcript page)."""
        return self.line_pages[0] if self.line_pages else None

    def line_at(self, offset: int) -> Span | None:
        return _span_at(self.lines, offset)

    def paragraph_at(self, offset: int) -> Paragraph | None:
        found = _span_at(self.paragraphs, offset)
        return found if isinstance(found, Paragraph) else None


def _span_at(spans: tuple[Span, ...], offset: int) -> Span | None:
    """The span containing `offset`, else the last span starting before it."""
    if not spans:
        return None
    starts = [s.start for s in spans]
    i = bisect.bisect_right(starts, offset) - 1
    return spans[max(i, 0)]


@dataclass(frozen=True)
class ParsedDocument:
    """What a parser returns: pages plus document-level facts."""

    file_type: FileType
    pages: tuple[Page, ...]
    title: str | None = None
    warnings: tuple[str, ...] = ()
    # A deposition or hearing transcript: how its passages are cited ("Smith Dep.", "Tr."), as
    # `Smith Dep. 45:3-12`; None otherwise (parse/transcript/).
    transcript: str | None = None

    @property
    def page_count(self) -> int:
        return sum(1 for p in self.pages if p.number is not None)

    @property
    def needs_ocr_pages(self) -> list[int]:
        return [p.number for p in self.pages if p.needs_ocr and p.number is not None]
