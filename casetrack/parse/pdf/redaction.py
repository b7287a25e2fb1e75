"""Bad redactions: dark boxes drawn over text that can still be selected and copied.

People "redact" a PDF by drawing a black rectangle over the words; the text layer under it is
untouched, so anyone can copy it out (and CaseTrack indexes it). Free Law Project's x-ray finds
these with PyMuPDF; this follows its rules on the pdfminer layout pdfplumber already built for
the page, so a normal page costs one walk over its objects (~0.6 ms, against ~47 ms to read it):

* a box is a filled, dark (luminance <= 100/255) rectangle at least 4 pt each way, under half
  the page, below the top 43 pt where court header stamps sit; a box with a slightly smaller
  one of its colour drawn right after it is a frame (pdfminer splits a ring into two boxes);
* a glyph is hidden by a box covering 80% of it when it was drawn first (it lies under the
  box) or has the box's colour, within 0.1 per RGB channel (black text on a black box);
* a box counts when what it hides reads as text: two letters or digits or more, not one
  character repeated ("XXXX"), not a "REDACTED" / "CONFIDENTIAL" label, no U+FFFD;
* as x-ray does, the page is then drawn (pdfium, 144 DPI, only for pages with a candidate)
  and a box counts only if it shows as one dark colour: this drops boxes drawn in a spot
  colour pdfminer reads as black, and boxes with something visible drawn over them.

The check never fails a parse: an error means "no finding".
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pdfminer.layout import LTChar, LTContainer, LTCurve

logger = logging.getLogger(__name__)

_MIN_SIDE = 4.0  # pt: thinner boxes are rules and borders
_HEADER_BOTTOM = 43.0  # pt from the top: CM/ECF stamps and running heads
_MAX_PAGE_SHARE = 0.5  # a box over half the page is a background, not a redaction
_DARK = 100 / 255  # BT.601 luminance at or under which a fill hides black text
_SAME_COLOUR = 0.1  # per RGB channel: text this close to the box's colour cannot be read
_COVERED = 0.8  # share of a glyph's area a box must cover
_FRAME_SHARE = 0.8  # an inner box this much of the outer one's area makes a frame
_RENDER_DPI = 144
_UNIFORM = 12  # grey levels a rendered box may vary by inside its 1-pixel border

# Labels a box may carry or cover (x-ray's list, plus the Portuguese ones).
_OK_WORDS = re.compile(
    r"redacted +and +publicly +filed|name +redacted|confidential|privileged?|redact\w*|"
    r"confidencial|sigiloso|tarjado|_+\s*district\s+of\s*_+",
    re.IGNORECASE,
)


class _Box(NamedTuple):
    seq: int
    x0: float
    y0: float
    x1: float
    y1: float
    rgb: tuple[float, float, float]


def _rgb(colour: Any) -> tuple[float, float, float] | None:
    """A gray, RGB or CMYK fill as RGB in 0-1; None for patterns and the unknown."""
    values = (colour,) if isinstance(colour, (int, float)) else colour
    if not isinstance(values, (tuple, list)) or not values:
        return None
    if not all(isinstance(v, (int, float)) for v in values):
        return None
    v = [min(max(float(x), 0.0), 1.0) for x in values]
    if len(v) == 1:
        return v[0], v[0], v[0]
    if len(v) == 3:
        return v[0], v[1], v[2]
    if len(v) == 4:
        c, m, y, k = v
        return (1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k)
    return None


def _luminance(rgb: tuple[float, float, float]) -> float:
    """0 (black) to 1 (white), ITU-R BT.601 weights (x-ray's)."""
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def _ordered_objects(page: Any) -> list[Any]:
    """The page's layout objects in drawing order, figures (form XObjects) opened in place."""
    out: list[Any] = []
    stack = list(reversed(page.layout._objs))
    while stack:
        obj = stack.pop()
        if isinstance(obj, LTContainer) and not isinstance(obj, LTChar):
            stack.extend(reversed(obj._objs))
        else:
            out.append(obj)
    return out


def _boxes(objects: Sequence[Any], page_width: float, page_height: float) -> list[_Box]:
    boxes: list[_Box] = []
    max_area = _MAX_PAGE_SHARE * page_width * page_height
    for seq, obj in enumerate(objects):
        # LTRect is an LTCurve; rounded boxes drawn with curves count too.
        if not isinstance(obj, LTCurve) or not obj.fill:
            continue
        if obj.width <= _MIN_SIDE or obj.height <= _MIN_SIDE or obj.width * obj.height > max_area:
            continue
        if page_height - obj.y0 <= _HEADER_BOTTOM:
            continue
        rgb = _rgb(obj.non_stroking_color)
        if rgb is not None and _luminance(rgb) <= _DARK:
            boxes.append(_Box(seq, obj.x0, obj.y0, obj.x1, obj.y1, rgb))
    return _without_frames(boxes)


def _without_frames(boxes: list[_Box]) -> list[_Box]:
    """Drop ring-shaped fills: a box followed at once by a slightly smaller one of its colour."""
    frames: set[int] = set()
    for outer, inner in zip(boxes, boxes[1:], strict=False):
        if inner.seq != outer.seq + 1 or not _same_colour(inner.rgb, outer.rgb):
            continue
        inside = (
            outer.x0 <= inner.x0 and inner.x1 <= outer.x1 and outer.y0 <= inner.y0 and inner.y1 <= outer.y1
        )
        area = (outer.x1 - outer.x0) * (outer.y1 - outer.y0)
        if inside and (inner.x1 - inner.x0) * (inner.y1 - inner.y0) >= _FRAME_SHARE * area:
            frames.update((outer.seq, inner.seq))
    return [b for b in boxes if b.seq not in frames]


def _same_colour(a: tuple[float, float, float] | None, b: tuple[float, float, float]) -> bool:
    return a is not None and max(abs(x - y) for x, y in zip(a, b, strict=True)) <= _SAME_COLOUR


def _hides(box: _Box, seq: int, char: Any, char_rgb: tuple[float, float, float] | None) -> bool:
    w = min(box.x1, char.x1) - max(box.x0, char.x0)
    h = min(box.y1, char.y1) - max(box.y0, char.y0)
    area = max(char.width, 0.0) * max(char.height, 0.0)
    if w <= 0 or h <= 0 or area <= 0 or w * h < _COVERED * area:
        return False
    if seq < box.seq:
        return True  # drawn first: under the box
    return _same_colour(char_rgb, box.rgb)


def _reads_as_text(text: str) -> bool:
    text = " ".join(text.split())
    if "\ufffd" in text:
        return False
    alnum = [ch for ch in text if ch.isalnum()]
    if len(alnum) < 2 or len(set(alnum)) == 1:
        return False
    return bool(_OK_WORDS.sub("", text).strip(" .,;:-_()[]"))


def _hiding_boxes(objects: Sequence[Any], boxes: list[_Box]) -> list[_Box]:
    """The boxes that hide text; the topmost box a glyph is under owns it (x-ray: stacked boxes
    are one redaction)."""
    boxes = sorted(boxes, key=lambda b: b.seq, reverse=True)
    hidden: dict[int, list[str]] = {}
    for seq, obj in enumerate(objects):
        if not isinstance(obj, LTChar):
            continue
        char_rgb: tuple[float, float, float] | None = None
        for box in boxes:
            if obj.x1 <= box.x0 or obj.x0 >= box.x1 or obj.y1 <= box.y0 or obj.y0 >= box.y1:
                continue
            if char_rgb is None:
                char_rgb = _rgb(obj.graphicstate.ncolor)
            if _hides(box, seq, obj, char_rgb):
                hidden.setdefault(box.seq, []).append(obj.get_text())
                break
    return [b for b in boxes if b.seq in hidden and _reads_as_text("".join(hidden[b.seq]))]


def _shown_dark(boxes: list[_Box], page: Any, path: Path, index: int, password: str | None) -> list[_Box]:
    """The boxes that the drawn page shows as one dark colour (x-ray's pixmap check)."""
    from casetrack.ocr import render_pdf_page

    rendered = render_pdf_page(path, index, dpi=_RENDER_DPI, password=password)
    image, scale = rendered.image, rendered.dpi / 72.0
    # Layout coordinates start at the media box's corner; pdfium draws the crop box.
    mb_x0, mb_y0 = (float(v) for v in page.page_obj.mediabox[:2])
    cb_x0, _, _, cb_y1 = (float(v) for v in page.page_obj.cropbox)
    shown: list[_Box] = []
    for b in boxes:
        left = round((b.x0 + mb_x0 - cb_x0) * scale) + 1
        right = round((b.x1 + mb_x0 - cb_x0) * scale) - 1
        top = round((cb_y1 - b.y1 - mb_y0) * scale) + 1
        bottom = round((cb_y1 - b.y0 - mb_y0) * scale) - 1
        if right - left < 1 or bottom - top < 1:
            continue
        # A grey ("L") image: one (lowest, highest) pair.
        extrema: Any = image.crop((left, top, right, bottom)).getextrema()
        low, high = float(extrema[0]), float(extrema[1])
        if high - low <= _UNIFORM and high <= _DARK * 255:
            shown.append(b)
    return shown


def bad_redaction_boxes(
    page: Any, path: Path | None = None, index: int = 0, password: str | None = None
) -> int:
    """How many dark boxes on a pdfplumber page hide text that can still be copied.

    With the file's `path` (and the page's 0-based `index`), candidates are confirmed on the
    drawn page; rotated pages keep the layout's verdict. 0 on any error: this is advice, never a
    reason to lose the page."""
    try:
        objects = _ordered_objects(page)
        layout = page.layout
        boxes = _boxes(objects, float(layout.width), float(layout.height))
        if not boxes:
            return 0
        found = _hiding_boxes(objects, boxes)
        if found and path is not None and not page.rotation:
            found = _shown_dark(found, page, path, index, password)
        return len(found)
    except Exception:  # noqa: BLE001 - advice only; pdfminer objects vary across producers
        logger.debug("bad-redaction check failed", exc_info=True)
        return 0


def bad_redaction_warning(number: int, boxes: int) -> str:
    """The page's ingest warning."""
    what = "1 black box covers" if boxes == 1 else f"{boxes} black boxes cover"
    return (
        f"p. {number}: {what} text that can still be copied (bad redaction); "
        "the hidden text is indexed and searchable"
    )
