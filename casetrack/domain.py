"""Typed data passed between layers: parsed pages, chunks, provenance, citations.

Offsets are the backbone of provenance. Every parser produces, per page, one text string
(`Page.text`) plus the exact character spans of its lines and paragraphs inside that string.
Chunks are contiguous character ranges of one page's text, so a chunk's line and paragraph
ranges are derived from its offsets and can never drift from the text it carries.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from enum import StrEnum


class ExtractionMethod(StrEnum):
    NATIVE = "native"  # text layer of a PDF, DOCX XML, plain text
    OCR = "ocr"  # tesseract (later issue)
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
    ocr_confidence: float | None = None

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

    @property
    def page_count(self) -> int:
        return sum(1 for p in self.pages if p.number is not None)

    @property
    def needs_ocr_pages(self) -> list[int]:
        return [p.number for p in self.pages if p.needs_ocr and p.number is not None]


@dataclass(frozen=True)
class Provenance:
    """Where a chunk came from, precise enough to cite."""

    document: str
    document_id: str
    page: int | None
    paragraph_start: int
    paragraph_end: int
    line_start: int
    line_end: int
    char_start: int
    char_end: int
    extraction_method: ExtractionMethod
    ocr_confidence: float | None = None
    # DOCX "lines" are explicit line breaks, not the lines Word lays out on screen: citing them
    # would send the reader to the wrong place, so DOCX citations stop at the paragraph.
    lines_citable: bool = True

    def citation(self) -> str:
        """Full citation in the spec's form: `Contract.pdf, p. 12, para. 8, ll. 1-4`."""
        parts = [self.document]
        if self.page is not None:
            parts.append(f"p. {self.page}")
        if self.paragraph_start == self.paragraph_end:
            parts.append(f"para. {self.paragraph_start}")
        else:
            parts.append(f"paras. {self.paragraph_start}-{self.paragraph_end}")
        if self.line_start > 0 and self.lines_citable:
            parts.append(
                f"l. {self.line_start}" if self.line_start == self.line_end else f"ll. {self.line_start}-{self.line_end}"
            )
        return ", ".join(parts)

    def citation_short(self) -> str:
        stem = self.document.rsplit(".", 1)[0] if "." in self.document else self.document
        if self.page is not None:
            return f"{stem}, p. {self.page}"
        return f"{stem}, para. {self.paragraph_start}"


@dataclass(frozen=True)
class ChunkDraft:
    """A chunk before it is stored: a character range of one page plus derived provenance."""

    seq: int
    text: str
    page: int | None
    page_index: int  # index into ParsedDocument.pages (pages without numbers need it)
    char_start: int
    char_end: int
    paragraph_start: int
    paragraph_end: int
    line_start: int
    line_end: int
    token_count: int
    extraction_method: ExtractionMethod = ExtractionMethod.NATIVE
    ocr_confidence: float | None = None

    def provenance(self, document: str, document_id: str) -> Provenance:
        return Provenance(
            document=document,
            document_id=document_id,
            page=self.page,
            paragraph_start=self.paragraph_start,
            paragraph_end=self.paragraph_end,
            line_start=self.line_start,
            line_end=self.line_end,
            char_start=self.char_start,
            char_end=self.char_end,
            extraction_method=self.extraction_method,
            ocr_confidence=self.ocr_confidence,
        )


@dataclass(frozen=True)
class SearchHit:
    chunk_id: str
    text: str
    score: float
    provenance: Provenance
    snippet: str = ""  # the sentences of `text` that best match the query
    context_before: str | None = None  # end of the previous chunk of the document (if asked)
    context_after: str | None = None  # start of the next chunk

    @property
    def citation(self) -> str:
        return self.provenance.citation()


@dataclass
class DocumentHit:
    """One document in the per-document view: its chunk scores aggregated, and its best passage."""

    document: str
    document_id: str
    score: float
    matching_chunks: int
    best: SearchHit


@dataclass
class SearchResponse:
    query: str
    case: str
    hits: list[SearchHit] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    stages_used: list[str] = field(default_factory=list)
    stages_skipped: dict[str, str] = field(default_factory=dict)  # slot -> why (tier, missing model)
    warnings: list[str] = field(default_factory=list)
    documents: list[DocumentHit] = field(default_factory=list)  # per-document view, when asked
