"""Turning a page image upright and straight before OCR.

* `as_gray(image)`: one channel for tesseract: 1-bit and 8-bit grey stay as they are; colour,
  palette and alpha (over white) become 8-bit grey; 16-bit and float images are scaled to 8 bits.
* `detect_rotation(image, dpi, deadline)`: tesseract OSD (`--psm 0`, the `osd` traineddata). It
  returns the clockwise turn (0/90/180/270) that makes the page upright, or 0 when OSD is not
  installed, fails (too few characters on a sparse page) or is unsure (confidence under
  ROTATE_MIN_CONFIDENCE).
* `estimate_skew(image)`: a projection-profile search on a downscaled, Otsu-binarised copy: the
  angle whose row profile is sharpest (text lines fall into few rows), coarse then fine.
* `upright(image, rotation, skew)`: the turn (lossless transpose) then the deskew (bicubic, about
  the centre, same size, white fill; skews under MIN_SKEW are left alone).

Measured on ../shared/data/ocr (46 pages and images run through OSD): confidence on truly rotated
pages was 9.3 to 11 on the small phototest variants and 25 to 35 on full pages; the one wrong answer
(a bar chart, "rotate 90") had confidence 2.3, hence ROTATE_MIN_CONFIDENCE = 5. Deskewing (bench/ocr.py)
took skew.pdf (1.8 degrees) from CER 0.046 to 0.010, rotated_skew.pdf (2.65 degrees) from 0.154 to
0.010 and 8071_093.3B.tif (0.45 degrees) from 0.094 to 0.049; the search costs 20-50 ms a page.
"""

from __future__ import annotations

import logging

import numpy as np
import pytesseract
from numpy.typing import NDArray
from PIL import Image

from casetrack.errors import OcrTimeoutError, ParseError
from casetrack.ocr.engine import has_osd, run_tesseract

logger = logging.getLogger(__name__)

ROTATE_MIN_CONFIDENCE = 5.0  # tesseract's OSD units (module docstring)
MAX_SKEW = 10.0  # degrees searched either way
MIN_SKEW = 0.2  # degrees: smaller skews are not worth a resampling
SKEW_SIDE = 1000  # the long side of the copy the skew is measured on, in pixels
_TRANSPOSE = {90: Image.Transpose.ROTATE_270, 180: Image.Transpose.ROTATE_180, 270: Image.Transpose.ROTATE_90}


def as_gray(image: Image.Image) -> Image.Image:
    """`image` as 1-bit or 8-bit grey (the same object when it already is)."""
    if image.mode in ("1", "L"):
        return image
    if image.mode in ("I", "I;16", "I;16B", "I;16L", "I;16N", "F"):
        values = np.asarray(image, dtype=np.float32)
        top = float(values.max()) if values.size else 0.0
        scaled = values * (255.0 / top) if top > 255 else values
        return Image.fromarray(np.clip(scaled, 0, 255).astype(np.uint8))
    if image.mode == "P":
        image = image.convert("RGBA")
    if "A" in image.getbands():
        background = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(background, image.convert("RGBA"))
    try:
        return image.convert("L")
    except ValueError:  # LAB, HSV ... have no direct path to L
        return image.convert("RGB").convert("L")


def detect_rotation(image: Image.Image, dpi: int | None, deadline: float) -> int:
    """Clockwise degrees (0/90/180/270) that turn `image` upright; 0 when OSD is missing or unsure."""
    if not has_osd():
        return 0
    config = f"--dpi {dpi}" if dpi else ""
    try:
        osd = run_tesseract("osd", image, "osd", config, deadline)
    except OcrTimeoutError:
        raise
    except ParseError as e:  # "Too few characters. Skipping this page": a sparse page
        logger.debug("OSD gave no answer: %s", e.message)
        return 0
    fields = pytesseract.pytesseract.osd_to_dict(osd)
    rotate, confidence = int(fields.get("rotate", 0)), float(fields.get("orientation_conf", 0.0))
    if rotate % 90 or rotate not in (0, 90, 180, 270):
        return 0
    if rotate and confidence < ROTATE_MIN_CONFIDENCE:
        logger.debug("OSD says rotate %d at confidence %.2f: too unsure to turn the page", rotate, confidence)
        return 0
    return rotate


def otsu(values: NDArray[np.uint8]) -> int:
    """The grey level t that best splits `values` into ink (<= t) and paper (> t): Otsu's method."""
    hist = np.bincount(values.ravel(), minlength=256).astype(np.float64)
    total = hist.sum()
    if total == 0:
        return 128
    levels = np.arange(256, dtype=np.float64)
    weight = np.cumsum(hist)
    mean = np.cumsum(hist * levels)
    between = (mean[-1] * weight - mean * total) ** 2 / np.maximum(weight * (total - weight), 1e-9)
    return int(np.argmax(between[:-1]))


def _ink(image: Image.Image) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Row and column coordinates of the ink pixels of a downscaled copy of `image`."""
    gray = image.convert("L") if image.mode != "L" else image
    factor = max(1, round(max(gray.size) / SKEW_SIDE))
    small = np.asarray(gray.reduce(factor) if factor > 1 else gray, dtype=np.uint8)
    ink = small <= otsu(small)  # Otsu: levels up to the threshold are the dark class
    if ink.mean() > 0.5:  # light text on a dark ground
        ink = ~ink
    rows, cols = np.nonzero(ink)
    return rows.astype(np.float64), cols.astype(np.float64)


def _sharpness(rows: NDArray[np.float64], cols: NDArray[np.float64], degrees: float) -> float:
    """How sharply ink falls into rows when sheared by `degrees`: sum of squared profile steps."""
    shifted = rows - cols * np.tan(np.radians(degrees))
    bins = np.bincount(np.round(shifted - shifted.min()).astype(np.int64)).astype(np.float64)
    return float(np.sum(np.diff(bins) ** 2))


# Ink that falls into columns far more sharply than into rows: text lines run up the page.
# Measured (sum of squared profile steps, columns / rows) on ../shared/data: upright pages
# 0.07-0.63 (eurotext 1.0, skew.pdf 2.0), pages on their side 4.0-11.0 (cardinal, phototest L/R).
SIDEWAYS_INK_RATIO = 3.0


def looks_sideways(image: Image.Image) -> bool:
    """Whether the page seems to lie on its side (text lines vertical): cheap (~20 ms), so the
    orientation pass can come first and the page be read once instead of twice."""
    rows, cols = _ink(image)
    if rows.size < 100:
        return False
    return _sharpness(cols, rows, 0.0) > SIDEWAYS_INK_RATIO * max(_sharpness(rows, cols, 0.0), 1e-9)


def estimate_skew(image: Image.Image, max_skew: float = MAX_SKEW) -> float:
    """Counter-clockwise degrees that straighten the text lines of `image` (0.0 if unsure)."""
    rows, cols = _ink(image)
    if rows.size < 100:  # a blank page: nothing to align
        return 0.0
    best = 0.0
    for step, span in ((0.5, max_skew), (0.05, 0.5)):
        angles = np.arange(best - span, best + span + step / 2, step)
        scores = [_sharpness(rows, cols, float(a)) for a in angles]
        best = float(angles[int(np.argmax(scores))])
    return round(best, 2)


def upright(image: Image.Image, rotation: int, skew: float) -> Image.Image:
    """`image` turned `rotation` degrees clockwise, then rotated `skew` degrees counter-clockwise."""
    if rotation:
        image = image.transpose(_TRANSPOSE[rotation])
    if abs(skew) >= MIN_SKEW:
        gray = image.convert("L") if image.mode != "L" else image
        image = gray.rotate(skew, resample=Image.Resampling.BICUBIC, fillcolor=255)
    return image
