"""Where each line of a page sits on the page, read again from the original file at view time.

A case stores each page's text and the character spans of its lines, not their positions, so
the page view reads them from the original (measured, bench/page_view.py: 0.05-0.3 s for a
text-layer page, a few seconds for an OCR'd one, against a new stored column and a migration
that would have to read every original again for the cases already built):

* a PDF page with a text layer: the same layout as ingest (parse/pdf/layout.py) with each
  line's words, so a line here is a line there; each word's box is pdfplumber's chars' box,
  turned back to the page's frame when the text runs rotated;
* a scanned page (a PDF page or an image file): rendered and read by tesseract again, each
  line's box the union of its word boxes (ocr/layout.py), mapped back through the turn and skew
  OCR applied.

Boxes are in PDF points (image pixels for an image file) with the origin at the top left of the
page as it is shown (its crop box, its /Rotate applied): the frame the page image is drawn in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from casetrack.parse.pdf.chars import Word


@dataclass(frozen=True)
class Box:
    """A rectangle on the shown page: x0, top, x1, bottom (points; pixels for an image file)."""

    x0: float
    top: float
    x1: float
    bottom: float

    def union(self, other: Box) -> Box:
        return Box(
            min(self.x0, other.x0),
            min(self.top, other.top),
            max(self.x1, other.x1),
            max(self.bottom, other.bottom),
        )

    def rounded(self) -> tuple[float, float, float, float]:
        return (round(self.x0, 2), round(self.top, 2), round(self.x1, 2), round(self.bottom, 2))


@dataclass(frozen=True)
class GeoLine:
    """One line of the page as the original lays it out: its text, its box and the boxes a
    highlight draws (the box itself, or pieces of a line that runs aslant on a skewed scan)."""

    text: str
    box: Box
    pieces: tuple[Box, ...] = ()

    @property
    def boxes(self) -> tuple[Box, ...]:
        return self.pieces or (self.box,)


@dataclass(frozen=True)
class PageGeometry:
    width: float  # the shown page, in the boxes' unit
    height: float
    lines: tuple[GeoLine, ...]  # reading order, as ingest read them
    source: str  # "text_layer" or "ocr"
    unit: str = "pt"  # "pt" (PDF) or "px" (image file)


def union_box(boxes: Sequence[Box]) -> Box:
    out = boxes[0]
    for b in boxes[1:]:
        out = out.union(b)
    return out


def _upright_to_page(w: Word, orientation: str, width: float, height: float) -> Box:
    """A word's box in the page's frame, from the frame where its text runs left to right (the
    inverse of pdf/chars.py's `_turn_upright`)."""
    if orientation == "ttb":
        return Box(width - w.bottom, w.x0, width - w.top, w.x1)
    if orientation == "btt":
        return Box(w.top, height - w.x1, w.bottom, height - w.x0)
    if orientation == "rtl":
        return Box(width - w.x1, height - w.bottom, width - w.x0, height - w.top)
    return Box(w.x0, w.top, w.x1, w.bottom)


def pdf_text_geometry(path: Path, index: int, password: str | None = None) -> PageGeometry:
    """The lines of page `index` (0-based) of a PDF's text layer, as ingest laid them out."""
    from casetrack.parse.pdf.chars import page_chars_and_images
    from casetrack.parse.pdf.layout import layout_page
    from casetrack.parse.pdf.opening import open_pdf

    with open_pdf(path, password) as pdf:
        page = pdf.pages[index]
        try:
            width, height = float(page.width), float(page.height)
            chars, _images = page_chars_and_images(page)
            # pdfplumber's frame is the media box; the page is shown (and rendered) by its crop box.
            dx, dy = _crop_offset(page)
            crop_w, crop_h = _crop_size(page, width, height)
            lines: list[GeoLine] = []
            for para in layout_page(chars, width, height):
                for text, words in zip(para.lines, para.words, strict=True):
                    boxes = [_upright_to_page(w, para.orientation, width, height) for w in words]
                    box = union_box(boxes)
                    lines.append(GeoLine(text, Box(box.x0 - dx, box.top - dy, box.x1 - dx, box.bottom - dy)))
        finally:
            page.close()
    return PageGeometry(crop_w, crop_h, tuple(lines), "text_layer")


def _crop_offset(page: Any) -> tuple[float, float]:
    """Where the crop box starts in pdfplumber's frame (top-left origin)."""
    try:
        crop, media = page.cropbox, page.mediabox
    except AttributeError:
        return 0.0, 0.0
    if page.rotation % 360 != 0 or crop is None or media is None:
        return 0.0, 0.0  # a turned page: pdfplumber already measures it as shown
    # Bottom-left origin boxes: x from the left edge, top from the media box's top edge.
    return float(crop[0]) - float(media[0]), float(media[3]) - float(crop[3])


def _crop_size(page: Any, width: float, height: float) -> tuple[float, float]:
    try:
        crop = page.cropbox
    except AttributeError:
        return width, height
    if crop is None or page.rotation % 360 != 0:
        return width, height
    return float(crop[2]) - float(crop[0]), float(crop[3]) - float(crop[1])


def ocr_geometry(image: Any, dpi: int | None, languages: str, timeout: float, scale: float) -> PageGeometry:
    """The lines tesseract reads on a page image, boxes in the image's frame times `scale`
    (72 / dpi for a rendered PDF page: points; 1 for an image file: pixels)."""
    from casetrack.ocr import numbered_paragraphs, ocr_image, source_box

    page = ocr_image(image, languages, timeout=timeout, dpi=dpi)
    lines: list[GeoLine] = []
    for paragraph in numbered_paragraphs(page):
        for line in paragraph.lines:
            pieces = tuple(
                Box(x0 * scale, y0 * scale, x1 * scale, y1 * scale)
                for x0, y0, x1, y1 in (source_box(page, b) for b in _pieces(line.box, page.skew))
            )
            lines.append(GeoLine(line.text, union_box(pieces), pieces if len(pieces) > 1 else ()))
    width, height = image.size
    return PageGeometry(width * scale, height * scale, tuple(lines), "ocr", "pt" if scale != 1.0 else "px")


def _pieces(box: tuple[int, int, int, int], skew: float) -> list[tuple[int, int, int, int]]:
    """A line's box cut into pieces about twice as wide as it is high when the scan was
    deskewed: on the page the line runs aslant, and one upright box around all of it would
    cover the lines above and below it too."""
    x0, y0, x1, y1 = box
    if not skew:
        return [box]
    step = max(2 * (y1 - y0), 8)
    n = max(1, -(-(x1 - x0) // step))
    edges = [x0 + (x1 - x0) * k // n for k in range(n + 1)]
    return [(edges[k], y0, edges[k + 1], y1) for k in range(n)]


def pdf_ocr_geometry(
    path: Path,
    index: int,
    languages: str,
    password: str | None = None,
    dpi: int = 300,
    timeout: float = 180.0,
) -> PageGeometry:
    """A scanned PDF page rendered as ingest rendered it and read by tesseract again."""
    from casetrack.ocr import render_pdf_page

    rendered = render_pdf_page(path, index, dpi=dpi, password=password)
    try:
        return ocr_geometry(rendered.image, rendered.dpi, languages, timeout, 72.0 / rendered.dpi)
    finally:
        rendered.image.close()


def image_ocr_geometry(path: Path, index: int, languages: str, timeout: float = 180.0) -> PageGeometry:
    """Page `index` of an image file (a TIFF may hold several) read by tesseract again."""
    from casetrack.ocr import image_pages

    for scan in image_pages(path):
        if scan.index == index:
            try:
                return ocr_geometry(scan.image, scan.dpi, languages, timeout, 1.0)
            finally:
                scan.image.close()
        scan.image.close()
    raise IndexError(f"{path.name} has no page {index + 1}")
