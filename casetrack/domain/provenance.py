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
    # Transcripts (parse/transcript/): how the document is cited ("Smith Dep.", "Tr.") and the
    # printed transcript page of the first and last cited line (line_start/line_end are then the
    # printed margin numbers); transcript_page_end is None when the span stays on one page.
    transcript: str | None = None
    transcript_page: int | None = None
    transcript_page_end: int | None = None

    @property
    def is_transcript(self) -> bool:
        return bool(self.transcript) and self.transcript_page is not None and self.line_start > 0

    def transcript_cite(self) -> str | None:
        """The transcript's own page:line cite: `Smith Dep. 45:3-12`, `Tr. 12:20-13:4`, `Tr. 7:2`
        (None when this is not a transcript passage)."""
        if not self.is_transcript:
            return None
        return f"{self.transcript} {page_line_range(self.transcript_page, self.line_start, self.transcript_page_end, self.line_end)}"

    def citation(self) -> str:
        """Full citation in the spec's form: `Contract.pdf, p. 12, para. 8, ll. 1-4`; a transcript
        passage: `Smith Dep. 45:3-12 (Smith_depo.pdf, p. 46)` (the file and its PDF page after the
        transcript's own cite; its Bates stamp last)."""
        cite = self.transcript_cite()
        if cite is not None:
            where = [self.document, *self._pages()]
            if self.bates:
                where.append(self.bates)
            return f"{cite} ({', '.join(where)})"
        parts = [self.document, *self._pages()]
        if self.paragraph_start == self.paragraph_end:
            parts.append(f"para. {self.paragraph_start}")
        else:
            parts.append(f"paras. {self.paragraph_start}-{self.paragraph_end}")
        if self.line_start > 0 and self.lines_citable:
            parts.append(
                f"l. {self.line_start}"
                if self.line_start == self.line_end
                else f"ll. {self.line_start}-{self.line_end}"
            )
        cite = ", ".join(parts)
        return f"{cite} ({self.bates})" if self.bates else cite

    def _pages(self) -> list[str]:
        if self.page is not None and self.page_end is not None and self.page_end != self.page:
            return [f"pp. {self.page}-{self.page_end}"]
        return [f"p. {self.page}"] if self.page is not None else []

    def citation_short(self) -> str:
        cite = self.transcript_cite()
        if cite is not None:
            return cite
        stem = self.document.rsplit(".", 1)[0] if "." in self.document else self.document
        if self.page is not None:
            return f"{stem}, p. {self.page}"
        return f"{stem}, para. {self.paragraph_start}"


def page_line_range(page: int | None, line: int, page_end: int | None, line_end: int) -> str:
    """`45:3-12`, `45:3`, or across a page break `12:20-13:4`."""
    if page_end is not None and page_end != page:
        return f"{page}:{line}-{page_end}:{line_end}"
    return f"{page}:{line}" if line_end == line else f"{page}:{line}-{line_end}"


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
    # Transcripts: the printed transcript page of each line of `text` (as `line_numbers`, which are
    # then the printed margin numbers) and how the document is cited ("Smith Dep.", "Tr.").
    line_pages: tuple[int, ...] = ()
    transcript: str | None = None

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
            transcript=self.transcript if self.line_pages else None,
            transcript_page=self.line_pages[0] if self.line_pages else None,
            transcript_page_end=self.line_pages[-1]
            if self.line_pages and self.line_pages[-1] != self.line_pages[0]
            else None,
        )
