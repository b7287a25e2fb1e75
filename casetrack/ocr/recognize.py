"""OCR of one page image: `ocr_image` (the whole page) and `margin_text` (the top and bottom strips).

`ocr_image(image, "eng+por", timeout=120.0, dpi=300)`:
  1. grey (`orient.as_gray`);
  2. straight: projection-profile deskew (`orient.estimate_skew`, `orient.upright`);
  3. tesseract `--psm 3` (automatic layout, no OSD) to TSV, parsed by `layout.parse_tsv`;
  (a page whose ink runs in columns, `orient.looks_sideways`, gets tesseract OSD first and is
  read once, turned: a page on its side costs OSD + one reading, not two readings;)
  4. upright, only when that reading is in doubt: its mean word confidence is under
     DOUBT_CONFIDENCE (an upside-down page reads as garbage: 22-34 against 91-96 for upright pages)
     or most of its lines are taller than wide (tesseract reads a page on its side, but its boxes
     stay turned). Then tesseract OSD (`orient.detect_rotation`, which leaves unsure pages alone)
     and, if OSD says turn, steps 2-3 again on the turned page; the better reading is kept;
  5. a transcript's printed line numbers (`OcrPage.margin`, ocr/margin.py): the left margin strip
     of the kept reading's straightened image read on its own, digits only; only when the strip's
     ink looks like a column of numbers (else no tesseract run, and `margin` is None); a margin
     read that fails or runs past the page's budget is given up, the page kept as read.
Languages are checked first (`require_languages`): tesseract given "eng+xyz" without xyz would
warn and read with eng alone. The timeout is one budget for the whole page (all tesseract runs);
past it tesseract is killed and `OcrTimeoutError` raised. `dpi` is what tesseract is told the
resolution is (None: it estimates one from the text size); it does not resample the image.

Why (bench/ocr.py): OSD on every page cost 0.7-0.9 s of CPU per 300 DPI page (half a recognition)
and 0.35 s on a small image, putting small images at 2.5x raw tesseract; asking OSD only when in
doubt makes an upright page cost one recognition plus ~50 ms. `--psm 3` reads linn's two columns
one after the other and matches `image_to_string`'s defaults, so our CER is tesseract's or better
(the deskew); `--psm 1` (OSD inside layout analysis) is cheaper still but cannot deskew first
(skew.pdf CER 0.046 vs 0.010), and its boxes stay in the unturned image. The image goes to
tesseract as PNM, which saves faster than PNG.

`margin_text(image, languages)` reads only the top and bottom strips of a page (a production/Bates
stamp, a page number) with `--psm 11` (sparse text): both strips go to one tesseract run, stacked
with a white gap; the boxes come back in the page's pixels.

Both are safe to call from several threads at once (each call runs its own tesseract process).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from PIL import Image

from casetrack.errors import ParseError
from casetrack.ocr.engine import remaining, require_languages, run_tesseract
from casetrack.ocr.layout import LineNumbers, OcrLine, OcrPage, OcrParagraph, parse_tsv
from casetrack.ocr.margin import read_line_numbers
from casetrack.ocr.orient import MIN_SKEW, as_gray, detect_rotation, estimate_skew, looks_sideways, upright

DOUBT_CONFIDENCE = 70.0  # a first reading under this mean word confidence may be upside down
SIDEWAYS_SHARE = 0.5  # of the lines (4+ characters) taller than wide: the page lies on its side
SIDEWAYS_MARGIN = 10.0  # confidence points the upright reading of a sideways page may lose and still win
MARGIN_FRACTION = 0.1  # of the page height, top and bottom: 1.1 inches of a letter page
_MARGIN_GAP = 64  # white pixels between the stacked strips, so tesseract sees two regions

log = logging.getLogger(__name__)


def _for_tesseract(image: Image.Image) -> Image.Image:
    """A copy pytesseract writes as PNM (the caller's image keeps its own `format`)."""
    copy = image.copy()
    copy.format = "PPM"
    return copy


def _config(psm: int, dpi: int | None) -> str:
    return f"--psm {psm}" + (f" --dpi {dpi}" if dpi else "")


@dataclass(frozen=True)
class _Reading:
    paragraphs: tuple[OcrParagraph, ...]
    confidence: float | None
    rotation: int
    skew: float
    size: tuple[int, int]
    image: Image.Image  # the straightened image tesseract read


def _read(gray: Image.Image, rotation: int, languages: str, dpi: int | None, deadline: float) -> _Reading:
    """Turn `gray` `rotation` degrees clockwise, straighten it and OCR it."""
    turned = upright(gray, rotation, 0.0)
    remaining(deadline)
    skew = estimate_skew(turned)
    skew = skew if abs(skew) >= MIN_SKEW else 0.0
    final = upright(turned, 0, skew)
    tsv = run_tesseract("tsv", _for_tesseract(final), languages, _config(3, dpi), deadline)
    paragraphs, confidence = parse_tsv(tsv)
    return _Reading(paragraphs, confidence, rotation, skew, final.size, final)


def _sideways(reading: _Reading) -> bool:
    """Most lines taller than wide: tesseract read a page lying on its side, in the wrong frame."""
    lines = [line for p in reading.paragraphs for line in p.lines if len(line.text) >= 4]
    tall = sum(line.box[3] - line.box[1] > line.box[2] - line.box[0] for line in lines)
    return bool(lines) and tall > SIDEWAYS_SHARE * len(lines)


def _line_numbers(reading: _Reading, languages: str, dpi: int | None, deadline: float) -> LineNumbers | None:
    """A transcript page's printed margin numbers (ocr/margin.py); None when there are none or
    they could not be read (the page keeps what OCR read)."""
    lines = [line for paragraph in reading.paragraphs for line in paragraph.lines]
    try:
        return read_line_numbers(reading.image, lines, languages, dpi, deadline) if lines else None
    except ParseError as e:
        log.warning("margin line numbers not read: %s", e.message)
        return None


def ocr_image(
    image: Image.Image,
    languages: str,
    timeout: float = 120.0,
    dpi: int | None = 300,
    line_numbers: bool = True,
) -> OcrPage:
    """OCR of one page image, straightened, and turned upright when in doubt (module docstring);
    `line_numbers`: read a transcript's margin numbers apart (`OcrPage.margin`, ocr/margin.py)."""
    started = time.perf_counter()
    deadline = time.monotonic() + timeout
    require_languages(languages)  # tesseract would drop a missing one of "eng+xyz" and go on
    gray = as_gray(image)
    first = detect_rotation(gray, dpi, deadline) if looks_sideways(gray) else 0
    reading = _read(gray, first, languages, dpi, deadline)
    sideways = _sideways(reading)
    if first == 0 and reading.confidence is not None and (sideways or reading.confidence < DOUBT_CONFIDENCE):
        rotation = detect_rotation(gray, dpi, deadline)
        if rotation:
            turned = _read(gray, rotation, languages, dpi, deadline)
            # The better reading wins; a sideways first reading has the right words in the wrong
            # frame (its boxes are turned), so the upright one wins unless it is clearly worse.
            margin = SIDEWAYS_MARGIN if sideways else 0.0
            if turned.confidence is not None and turned.confidence + margin >= reading.confidence:
                reading = turned
    numbers = _line_numbers(reading, languages, dpi, deadline) if line_numbers else None
    return OcrPage(
        reading.paragraphs,
        reading.confidence,
        reading.rotation,
        reading.skew,
        *reading.size,
        round(time.perf_counter() - started, 3),
        dpi,
        numbers,
    )


def margin_text(
    image: Image.Image,
    languages: str,
    *,
    dpi: int | None = 300,
    fraction: float = MARGIN_FRACTION,
    timeout: float = 30.0,
) -> tuple[OcrLine, ...]:
    """Lines of text in the top and bottom `fraction` of an upright page, top strip first,
    with boxes in `image`'s pixels. No turning or deskewing: pass the page as it reads."""
    require_languages(languages)
    gray = as_gray(image)
    width, height = gray.size
    strip = max(1, min(height // 2, round(height * fraction)))
    stacked = Image.new(gray.mode, (width, 2 * strip + _MARGIN_GAP), 255 if gray.mode == "L" else 1)
    stacked.paste(gray.crop((0, 0, width, strip)), (0, 0))
    bottom_at = strip + _MARGIN_GAP
    stacked.paste(gray.crop((0, height - strip, width, height)), (0, bottom_at))
    tsv = run_tesseract(
        "tsv", _for_tesseract(stacked), languages, _config(11, dpi), time.monotonic() + timeout
    )
    paragraphs, _ = parse_tsv(tsv)
    lines = []
    for line in (line for paragraph in paragraphs for line in paragraph.lines):
        x0, y0, x1, y1 = line.box
        shift = height - strip - bottom_at if y0 >= bottom_at - _MARGIN_GAP // 2 else 0
        lines.append(OcrLine(line.text, line.confidence, (x0, y0 + shift, x1, y1 + shift)))
    return tuple(sorted(lines, key=lambda line: (line.box[1] > height // 2, line.box[1], line.box[0])))
