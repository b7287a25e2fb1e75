"""Builds a `Page` (text plus exact line and paragraph spans) from paragraphs of lines.

Every parser feeds its paragraphs through here, so all formats share one text layout:
lines of a paragraph are joined by "\\n", paragraphs by "\\n\\n". Offsets are computed while
the text is built, never searched for afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence

from casetrack.domain import ExtractionMethod, Page, Paragraph, ParagraphKind, Span

PARAGRAPH_SEPARATOR = "\n\n"
LINE_SEPARATOR = "\n"


class PageBuilder:
    """Accumulates paragraphs for one page.

    `first_paragraph_number` lets unpaged formats number paragraphs through the whole
    document; `first_line_number` does the same for lines.
    """

    def __init__(
        self, number: int | None, first_paragraph_number: int = 1, first_line_number: int = 1
    ) -> None:
        self.number = number
        self._parts: list[str] = []
        self._length = 0
        self._lines: list[Span] = []
        self._confidences: list[float] = []  # OCR: each line's mean word confidence
        self._line_pages: list[int] = []  # transcripts: each line's printed transcript page
        self._paragraphs: list[Paragraph] = []
        self._next_paragraph = first_paragraph_number
        self._next_line = first_line_number

    @property
    def next_paragraph_number(self) -> int:
        return self._next_paragraph

    @property
    def next_line_number(self) -> int:
        return self._next_line

    @property
    def is_empty(self) -> bool:
        return not self._paragraphs

    def add_paragraph(
        self,
        lines: Sequence[str],
        kind: ParagraphKind = ParagraphKind.BODY,
        first_line_number: int | None = None,
        confidences: Sequence[float] | None = None,
        numbers: Sequence[tuple[int, int]] | None = None,
    ) -> None:
        """Add one paragraph. Blank lines are dropped; a paragraph with no text is ignored.

        `first_line_number` pins the number of the paragraph's first line, for sources whose
        blank lines still count (a .txt cited by the line numbers an editor shows).
        `confidences`: OCR'd lines' mean word confidences, one per line of `lines`.
        `numbers`: a transcript's printed (page, line) of each line of `lines` (parse/transcript/):
        the lines take those numbers, which restart on each transcript page.
        """
        if first_line_number is not None:
            if first_line_number < self._next_line:
                raise ValueError(f"line {first_line_number} comes before line {self._next_line}")
            self._next_line = first_line_number
        joined = [" ".join(line.split()) for line in lines]
        kept = [i for i, line in enumerate(joined) if line]
        clean = [joined[i] for i in kept]
        if not clean:
            return
        if confidences is not None:
            self._confidences += [float(confidences[i]) for i in kept]
        printed = [numbers[i] for i in kept] if numbers is not None else None
        if printed is not None:
            self._line_pages += [page for page, _ in printed]
        if self._paragraphs:
            self._append(PARAGRAPH_SEPARATOR)
        para_start = self._length
        for i, line in enumerate(clean):
            if i:
                self._append(LINE_SEPARATOR)
            start = self._length
            self._append(line)
            if printed is not None:
                self._next_line = printed[i][1]
            self._lines.append(Span(self._next_line, start, self._length))
            self._next_line += 1
        self._paragraphs.append(Paragraph(self._next_paragraph, para_start, self._length, kind))
        self._next_paragraph += 1

    def _append(self, s: str) -> None:
        self._parts.append(s)
        self._length += len(s)

    def build(
        self,
        extraction_method: ExtractionMethod = ExtractionMethod.NATIVE,
        needs_ocr: bool = False,
        ocr_confidence: float | None = None,
    ) -> Page:
        return Page(
            number=self.number,
            text="".join(self._parts),
            lines=tuple(self._lines),
            paragraphs=tuple(self._paragraphs),
            extraction_method=extraction_method,
            needs_ocr=needs_ocr,
            ocr_confidence=ocr_confidence,
            line_confidences=tuple(self._confidences) if len(self._confidences) == len(self._lines) else (),
            line_pages=tuple(self._line_pages) if len(self._line_pages) == len(self._lines) else (),
        )
