"""Where a passage came from, precise enough to cite, and the chunk before it is stored."""

from __future__ import annotations

from dataclasses import dataclass

from casetrack.domain.document import ExtractionMethod


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
    # The last page of a span that crosses pages (`pp. 12-13`); None when it stays on `page`.
    page_end: int | None = None
    bates: str | None = None  # the page's production stamp ("ABC0001234"), cited after the lines
    section: str | None = None  # a statute's structural path ("Lei 8.078/1990 › Art. 49"), chunk/structure.py

    def citation(self) -> str:
        """Full citation in the spec's form: `Contract.pdf, p. 12, para. 8, ll. 1-4`."""
        parts = [self.document]
        if self.page is not None and self.page_end is not None and self.page_end != self.page:
            parts.append(f"pp. {self.page}-{self.page_end}")
        elif self.page is not None:
            parts.append(f"p. {self.page}")
        if self.paragraph_start == self.paragraph_end:
            parts.append(f"para. {self.paragraph_start}")
        else:
            parts.append(f"paras. {self.paragraph_start}-{self.paragraph_end}")
        if self.line_start > 0 and self.lines_citable:
            parts.append(
                f"l. {self.line_start}" if self.line_start == self.line_end else f"ll. {self.line_start}-{self.line_end}"
            )
        cite = ", ".join(parts)
        return f"{cite} ({self.bates})" if self.bates else cite

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
    # The stored number of each line of `text`, in order (the first may be a partial line):
    # consecutive on a page, but a .txt's own line numbers skip its blank lines.
    line_numbers: tuple[int, ...] = ()
    line_confidences: tuple[float, ...] = ()  # OCR'd pages: each of those lines' mean word confidence
    bates: str | None = None
    section: str | None = None  # structural path: "Lei 8.078/1990 › Art. 49" (chunk/structure.py)

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
            bates=self.bates,
        )
