"""PDF page → glyphs → words: the first step of pdf/layout.py.

Chars are read straight from pdfminer's layout (much cheaper than pdfplumber's `page.chars`),
glyphs drawn twice are dropped, rotated text is turned upright so it reads as lines too, and
words come from pdfplumber's WordExtractor with a font size and boldness each.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from pdfminer.layout import LTChar, LTContainer, LTImage
from pdfplumber.utils.text import WordExtractor

CID_RE = re.compile(r"\(cid:\d+\)")
# Control characters, U+FFFD and private-use code points: glyphs without a Unicode mapping.
# Also what pdf/text_layer.py counts as junk when judging whether a text layer is usable.
JUNK_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f\ufffd\ue000-\uf8ff]")

_BOLD_HINTS = ("bold", "black", "heavy", "semibold", "demi")


class Word(NamedTuple):
    x0: float
    top: float
    x1: float
    bottom: float
    text: str
    size: float
    bold: bool


class Box(NamedTuple):
    x0: float
    top: float
    x1: float
    bottom: float


def page_chars_and_images(page: Any) -> tuple[list[dict[str, Any]], list[Box]]:
    """Chars (as the dicts pdfplumber's WordExtractor takes) and image boxes of a page.

    Read straight from pdfplumber's pdfminer layout, with pdfplumber's coordinate
    conventions. `page.chars` would convert every layout object (paths, colours, ...) into a
    fully resolved dict first, which costs more than interpreting the page itself.
    """
    height = float(page.height)
    mb_x0, mb_top = (float(v) for v in page.mediabox[:2])
    chars: list[dict[str, Any]] = []
    images: list[Box] = []
    stack = list(reversed(page.layout._objs))
    while stack:
        obj = stack.pop()
        if isinstance(obj, LTChar):
            top = height - obj.y1 + mb_top
            fontname = obj.fontname
            chars.append(
                {
                    "text": obj.get_text(),
                    "x0": obj.x0 + mb_x0,
                    "x1": obj.x1 + mb_x0,
                    "top": top,
                    "doctop": top,
                    "bottom": height - obj.y0 + mb_top,
                    "width": obj.width,
                    "height": obj.height,
                    "size": obj.size,
                    "upright": obj.upright,
                    "matrix": obj.matrix,
                    "fontname": fontname if isinstance(fontname, str) else str(fontname),
                }
            )
        elif isinstance(obj, LTImage):
            images.append(
                Box(obj.x0 + mb_x0, height - obj.y1 + mb_top, obj.x1 + mb_x0, height - obj.y0 + mb_top)
            )
        elif isinstance(obj, LTContainer):
            stack.extend(reversed(obj._objs))
    return chars, images


# --------------------------------------------------------------------------------------------
# chars → words
# --------------------------------------------------------------------------------------------


def dedupe_chars(chars: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop glyphs drawn twice at (almost) the same spot: fake bold and shadowed text.

    pdfplumber's own dedupe_chars is quadratic (it re-sorts with list.index), which is too
    slow for dense pages, so this buckets by text and rounded top instead.
    """
    seen: dict[tuple[str, int], list[float]] = {}
    out: list[dict[str, Any]] = []
    for c in chars:
        text = c["text"]
        if text == " ":
            out.append(c)
            continue
        key = (text, round(c["top"]))
        x0 = c["x0"]
        tol = min(1.0, 0.25 * (c.get("size") or 4.0))
        xs = seen.get(key)
        if xs is None:
            seen[key] = [x0]
        elif any(abs(x - x0) <= tol for x in xs):
            continue
        else:
            xs.append(x0)
        out.append(c)
    return out


def orientation_of(c: dict[str, Any]) -> str:
    """Reading direction of a glyph from its text matrix (which pdfminer already combines
    with the page's /Rotate): ltr, ttb (turned clockwise), btt (anticlockwise) or rtl
    (upside down)."""
    a, b = c["matrix"][0], c["matrix"][1]
    if abs(a) >= abs(b):
        return "ltr" if a > 0 else "rtl"
    return "ttb" if b < 0 else "btt"


def _turn_upright(c: dict[str, Any], orient: str, width: float, height: float) -> dict[str, Any]:
    """A copy of a rotated glyph in a frame where its text runs left to right."""
    x0, x1, top, bottom = c["x0"], c["x1"], c["top"], c["bottom"]
    if orient == "ttb":
        box = (top, width - x1, bottom, width - x0)
    elif orient == "btt":
        box = (height - bottom, x0, height - top, x1)
    else:  # rtl: upside down
        box = (width - x1, height - bottom, width - x0, height - top)
    nx0, ntop, nx1, nbottom = box
    size = nbottom - ntop
    return {
        **c,
        "x0": nx0,
        "x1": nx1,
        "top": ntop,
        "bottom": nbottom,
        "doctop": ntop,
        "width": nx1 - nx0,
        "height": size,
        "size": size,
        "upright": True,
    }


def split_by_orientation(
    chars: Sequence[dict[str, Any]], width: float, height: float
) -> list[list[dict[str, Any]]]:
    """Char groups that each read left to right, the most populous first."""
    # pdfminer calls upside-down text upright, hence the look at the matrix as well.
    if all(c["upright"] and c["matrix"][0] > 0 for c in chars):
        return [list(chars)] if chars else []
    groups: dict[str, list[dict[str, Any]]] = {}
    for c in chars:
        orient = orientation_of(c)
        groups.setdefault(orient, []).append(
            c if orient == "ltr" else _turn_upright(c, orient, width, height)
        )
    return sorted(groups.values(), key=len, reverse=True)


def _is_bold(fontname: str, cache: dict[str, bool]) -> bool:
    bold = cache.get(fontname)
    if bold is None:
        name = fontname.lower().split("+", 1)[-1]
        bold = any(h in name for h in _BOLD_HINTS) or name.endswith((",b", "-b", ",bolditalic"))
        cache[fontname] = bold
    return bold


def clean_text(text: str) -> str:
    if "(cid:" in text:
        text = CID_RE.sub("", text)
    return JUNK_RE.sub("", text)


def words_from_chars(chars: list[dict[str, Any]]) -> list[Word]:
    """Words of upright chars, with a representative font size and boldness each."""
    if not chars:
        return []
    # A tolerance relative to the font size: 3 pt (pdfplumber's default) glues words in
    # small or tightly justified type (LaTeX shrinks interword space to ~0.22 em).
    extractor = WordExtractor(
        x_tolerance_ratio=0.2, y_tolerance=3, keep_blank_chars=False, use_text_flow=False
    )
    bold_cache: dict[str, bool] = {}
    out: list[Word] = []
    for w in extractor.extract_words(chars, return_chars=True):
        text = clean_text(w["text"])
        if not text.strip():
            continue
        wchars = w["chars"]
        mid = wchars[len(wchars) // 2]
        out.append(
            Word(
                float(w["x0"]),
                float(w["top"]),
                float(w["x1"]),
                float(w["bottom"]),
                text,
                float(mid.get("size") or (w["bottom"] - w["top"])),
                _is_bold(str(mid.get("fontname") or ""), bold_cache),
            )
        )
    return out
