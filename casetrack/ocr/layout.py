"""What OCR found on a page: paragraphs of lines with confidences and pixel boxes.

`parse_tsv(tsv)` turns tesseract's TSV (`image_to_data`) into paragraphs, in tesseract's reading
order: blocks, then paragraphs, then lines, then words (a two-column scan reads column by column,
as tesseract's layout analysis orders the blocks).

* Words with a negative confidence (tesseract's rows for blocks, paragraphs and lines) or no text
  are dropped.
* Noise lines are dropped (`is_noise`): a line with no letter or digit at all (scanner streaks,
  rules, "— ~ |"), and a short line (fewer than NOISE_MIN_CHARS letters and digits) read with a
  mean confidence under NOISE_MAX_CONFIDENCE ("aN", "i" read from specks and stains).
* A line's confidence is the mean of its words' (0-100); its box is the union of its words' boxes,
  (x0, y0, x1, y1) in pixels of the image OCR'd (x1, y1 exclusive).

`OcrPage` also says how the image was turned before OCR; `source_box(page, box)` maps a box back
to the pixels of the image that was passed in (for highlighting, or PDF points: px * 72 / dpi).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

Box = tuple[int, int, int, int]

NOISE_MAX_CONFIDENCE = 50.0
NOISE_MIN_CHARS = 3


@dataclass(frozen=True)
class OcrLine:
    text: str  # words joined by single spaces
    confidence: float  # mean word confidence, 0-100
    box: Box  # (x0, y0, x1, y1) in the OCR'd image's pixels


@dataclass(frozen=True)
class OcrParagraph:
    lines: tuple[OcrLine, ...]

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)


@dataclass(frozen=True)
class LineNumbers:
    """A transcript's printed margin numbers, read apart from the page (ocr/margin.py): one entry
    per line of the page, in `OcrPage.lines` order."""

    numbers: tuple[int | None, ...]  # the line's printed number; None: on no numbered row
    dropped: tuple[
        bool, ...
    ]  # the line leaves: margin digits tesseract read, or text read as a vertical line
    edge: int  # x (pixels) where the text column starts; the margin strip lies left of it
    pitch: float  # pixels from one numbered row to the next
    seconds: float  # wall time of the margin read


@dataclass(frozen=True)
class OcrPage:
    """One page's OCR. Boxes are in the image OCR'd: the input turned `rotation` degrees clockwise,
    then rotated `skew` degrees counter-clockwise about its centre (same size)."""

    paragraphs: tuple[OcrParagraph, ...]  # reading order (module docstring)
    confidence: float | None  # mean word confidence of the kept lines; None when no words
    rotation: int  # clockwise degrees the image was turned to be upright: 0/90/180/270
    skew: float  # counter-clockwise degrees of skew corrected (0.0 when none)
    width: int  # of the image OCR'd (after rotation)
    height: int
    seconds: float  # wall time of this page's OCR
    dpi: int | None = None  # the resolution tesseract was told (None: it estimated one)
    margin: LineNumbers | None = None  # a transcript page's printed line numbers (ocr/margin.py)

    @property
    def lines(self) -> Iterator[OcrLine]:
        return (line for paragraph in self.paragraphs for line in paragraph.lines)

    @property
    def text(self) -> str:
        """Lines joined by newlines, paragraphs by blank lines."""
        return "\n\n".join(paragraph.text for paragraph in self.paragraphs)

    @property
    def words(self) -> int:
        return sum(len(line.text.split()) for line in self.lines)


@dataclass(frozen=True)
class _Word:
    key: tuple[int, int, int]  # block, paragraph, line
    text: str
    confidence: float
    box: Box


def _words(tsv: str) -> Iterator[_Word]:
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t", 11)
        if len(cells) < 12 or cells[0] != "5":
            continue
        text = cells[11].strip()
        try:
            confidence = float(cells[10])
            block, par, line, left, top, width, height = (int(c) for c in (*cells[2:5], *cells[6:10]))
        except ValueError:
            continue
        if confidence < 0 or not text:
            continue
        yield _Word((block, par, line), text, min(confidence, 100.0), (left, top, left + width, top + height))


def tsv_words(tsv: str) -> list[tuple[str, float, Box]]:
    """Every word of tesseract's TSV: its text, confidence (0-100) and box, in tesseract's order."""
    return [(w.text, w.confidence, w.box) for w in _words(tsv)]


def is_noise(text: str, confidence: float) -> bool:
    """Whether a line is scanner noise rather than text (module docstring)."""
    chars = sum(ch.isalnum() for ch in text)
    return chars == 0 or (chars < NOISE_MIN_CHARS and confidence < NOISE_MAX_CONFIDENCE)


def _line(words: list[_Word]) -> OcrLine:
    box = (
        min(w.box[0] for w in words),
        min(w.box[1] for w in words),
        max(w.box[2] for w in words),
        max(w.box[3] for w in words),
    )
    confidence = sum(w.confidence for w in words) / len(words)
    return OcrLine(" ".join(w.text for w in words), round(confidence, 2), box)


def parse_tsv(tsv: str, offset: tuple[int, int] = (0, 0)) -> tuple[tuple[OcrParagraph, ...], float | None]:
    """Paragraphs of kept lines, in tesseract's order, and the mean confidence of their words.
    `offset` (dx, dy) is added to every box (for a crop of a bigger image)."""
    lines: dict[tuple[int, int, int], list[_Word]] = {}
    for word in _words(tsv):
        lines.setdefault(word.key, []).append(word)
    paragraphs: dict[tuple[int, int], list[OcrLine]] = {}
    confidences: list[float] = []
    dx, dy = offset
    for key, words in lines.items():
        line = _line(words)
        if is_noise(line.text, line.confidence):
            continue
        x0, y0, x1, y1 = line.box
        paragraphs.setdefault(key[:2], []).append(
            OcrLine(line.text, line.confidence, (x0 + dx, y0 + dy, x1 + dx, y1 + dy))
        )
        confidences.extend(w.confidence for w in words)
    mean = round(sum(confidences) / len(confidences), 2) if confidences else None
    return tuple(OcrParagraph(tuple(p)) for p in paragraphs.values()), mean


def _unskew(x: float, y: float, page: OcrPage) -> tuple[float, float]:
    """A point of the OCR'd image in the turned (not yet deskewed) image."""
    if not page.skew:
        return x, y
    cx, cy = page.width / 2, page.height / 2
    # PIL rotated the turned image `skew` degrees counter-clockwise (y down): undo it.
    a = math.radians(page.skew)
    dx, dy = x - cx, y - cy
    return cx + dx * math.cos(a) - dy * math.sin(a), cy + dx * math.sin(a) + dy * math.cos(a)


def _unturn(x: float, y: float, page: OcrPage) -> tuple[float, float]:
    """A point of the turned image in the image passed in."""
    w, h = page.width, page.height  # of the turned image
    if page.rotation == 90:  # turned clockwise: the source was h wide, w high
        return y, w - x
    if page.rotation == 180:
        return w - x, h - y
    if page.rotation == 270:
        return h - y, x
    return x, y


def source_box(page: OcrPage, box: Box) -> Box:
    """`box` (in the OCR'd image) as the smallest box around it in the image passed to OCR."""
    corners = [
        _unturn(*_unskew(float(x), float(y), page), page) for x in (box[0], box[2]) for y in (box[1], box[3])
    ]
    xs, ys = [c[0] for c in corners], [c[1] for c in corners]
    return (math.floor(min(xs)), math.floor(min(ys)), math.ceil(max(xs)), math.ceil(max(ys)))
