"""What the page view shows: a page, its lines, which of them are cited, and where they sit.

`PageView` is the typed record the app hands its surfaces; `PageViewJson` is its JSON (the
`get_page_view` tool's structured output, the data the HTML view draws and `casetrack show`
embeds). Its keys are an interface: add keys, never rename.
"""

from __future__ import annotations

from dataclasses import dataclass

from typing_extensions import TypedDict

from casetrack.view.geometry import Box


class ViewLineJson(TypedDict):
    number: int  # the line's number as citations give it (a transcript's printed number)
    text: str
    cited: bool
    box: list[float] | None  # [x0, top, x1, bottom] on the page image; None: not placed (text view)
    boxes: list[list[float]]  # what a highlight of the line covers (pieces of a line aslant on a scan)


class PageViewJson(TypedDict):
    case: str
    document: str
    document_id: str
    file_type: str | None
    page: int | None  # the page number as cited; None for an unpaged text (TXT, most DOCX)
    page_index: int  # 0-based: what get_page_image takes
    page_count: int  # pages of the document (1 for an unpaged text)
    prev_page: int | None  # page_index of the page before, None on the first
    next_page: int | None
    citation: str  # the cited place in CaseTrack's form, "" when no lines are cited
    cited_lines: list[int]  # the cited lines' numbers
    bates: str | None  # the page's production stamp
    ocr_confidence: float | None  # the cited lines' mean OCR word confidence (0-100); None when native
    extraction_method: str  # native | ocr | none
    kind: str  # "image": the page drawn (get_page_image) with `highlights`; "text": lines laid out
    width: float | None  # the page image's frame: boxes are in it (points; pixels for an image file)
    height: float | None
    unit: str | None  # "pt" or "px"
    boxes_from: str | None  # "text_layer" (PDF characters) or "ocr" (tesseract word boxes)
    highlights: list[list[float]]  # [x0, top, x1, bottom] of each cited line found on the page
    lines: list[ViewLineJson]
    warnings: list[str]


@dataclass(frozen=True)
class ViewLine:
    number: int
    text: str
    cited: bool
    box: Box | None = None
    pieces: tuple[Box, ...] = ()  # the highlight's boxes when not just `box` (geometry.GeoLine)

    @property
    def boxes(self) -> tuple[Box, ...]:
        if self.box is None:
            return ()
        return self.pieces or (self.box,)


@dataclass(frozen=True)
class PageView:
    case: str
    document: str
    document_id: str
    file_type: str | None
    page: int | None
    page_index: int
    page_count: int
    citation: str
    bates: str | None
    ocr_confidence: float | None
    extraction_method: str
    lines: tuple[ViewLine, ...]
    kind: str = "text"
    width: float | None = None
    height: float | None = None
    unit: str | None = None
    boxes_from: str | None = None
    warnings: tuple[str, ...] = ()

    @property
    def highlights(self) -> list[Box]:
        return [box for line in self.lines if line.cited for box in line.boxes]

    def to_json(self) -> PageViewJson:
        return {
            "case": self.case,
            "document": self.document,
            "document_id": self.document_id,
            "file_type": self.file_type,
            "page": self.page,
            "page_index": self.page_index,
            "page_count": self.page_count,
            "prev_page": self.page_index - 1 if self.page_index > 0 else None,
            "next_page": self.page_index + 1 if self.page_index + 1 < self.page_count else None,
            "citation": self.citation,
            "cited_lines": [line.number for line in self.lines if line.cited],
            "bates": self.bates,
            "ocr_confidence": self.ocr_confidence,
            "extraction_method": self.extraction_method,
            "kind": self.kind,
            "width": self.width,
            "height": self.height,
            "unit": self.unit,
            "boxes_from": self.boxes_from,
            "highlights": [list(b.rounded()) for b in self.highlights],
            "lines": [
                {
                    "number": line.number,
                    "text": line.text,
                    "cited": line.cited,
                    "box": list(line.box.rounded()) if line.box is not None else None,
                    "boxes": [list(b.rounded()) for b in line.boxes],
                }
                for line in self.lines
            ],
            "warnings": list(self.warnings),
        }
