"""Whether a PDF page's text layer can be used, or the page is blank, or it must be OCR'd (a scan,
a scan under a stamp, or glyphs without a Unicode mapping that read as gibberish)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from casetrack.parse.pdf.chars import CID_RE, JUNK_RE, Box

# A scanned page often carries a stamp (Bates number, "CONFIDENTIAL", fax header): when an
# image covers most of the page, fewer letters and digits than this mean "scan with a stamp".
# Short text next to a small image (a logo, a figure) is kept.
MIN_ALNUM_CHARS_OVER_SCAN = 100
_SCAN_AREA_FRACTION = 0.5
# A page an image covers whole ("far shorter than its ink suggests"): measured over the scans
# in ../shared/data, a court header or filing stamp over a scan carries 36-102 letters and
# digits, a real OCR text layer (ABBYY, ocrmypdf) 320 or more; under this many the page is OCR'd.
MIN_ALNUM_CHARS_OVER_FULL_SCAN = 250
_FULL_SCAN_AREA_FRACTION = 0.9

# Leaders and rules ("......", "____") are neither letters nor garbage.
_FILLER_RE = re.compile(r"[\s._\-=*·…–—]")


def text_layer_verdict(chars: Sequence[dict[str, Any]], images: Sequence[Box], page_area: float) -> str:
    """The page's kind: "text", "blank" (nothing on it) or "ocr" (a scan, or garbage text)."""
    raw = "".join(c["text"] for c in chars)
    n_cid = len(CID_RE.findall(raw)) if "(cid:" in raw else 0
    visible = CID_RE.sub("\x00", raw) if n_cid else raw
    visible = _FILLER_RE.sub("", visible)
    n_junk = len(JUNK_RE.findall(visible))
    n_alnum = sum(ch.isalnum() for ch in visible)
    if visible:
        # Glyphs without a Unicode mapping come out as (cid:N), U+FFFD, control or private-
        # use characters; when they dominate, the text layer reads as gibberish.
        if n_junk / len(visible) > 0.5 or (len(visible) >= 40 and n_alnum / len(visible) < 0.25):
            return "ocr"
    if n_alnum == 0:
        return "ocr" if images else ("text" if visible else "blank")
    covered = _image_area(images) / page_area
    if n_alnum < MIN_ALNUM_CHARS_OVER_SCAN and covered >= _SCAN_AREA_FRACTION:
        return "ocr"
    if n_alnum < MIN_ALNUM_CHARS_OVER_FULL_SCAN and covered >= _FULL_SCAN_AREA_FRACTION:
        return "ocr"
    return "text"


def page_area(page: Any) -> float:
    return max(float(page.width) * float(page.height), 1.0)


def _image_area(images: Sequence[Box]) -> float:
    return sum(max(b.x1 - b.x0, 0.0) * max(b.bottom - b.top, 0.0) for b in images)
