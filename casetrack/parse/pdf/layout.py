"""PDF page geometry: pdfplumber chars → words → reading-order blocks → lines → paragraphs.

Citations point at lines and paragraphs as a reader sees them on the page, so the layout is
rebuilt from glyph positions rather than from the content-stream order:

* Words come from de-duplicated chars, rotated text turned upright first (pdf/chars.py).
* Columns are found by a restricted XY-cut on the word boxes (pdf/columns.py).
* Inside a block, words are grouped into lines by vertical overlap (pdf/lines.py), and lines
  into paragraphs by vertical gap, first-line indentation and font changes (here).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from casetrack.domain import ParagraphKind
from casetrack.parse.pdf.chars import (
    Word,
    dedupe_chars,
    orientation_of,
    split_by_orientation,
    words_from_chars,
)
from casetrack.parse.pdf.columns import reading_blocks
from casetrack.parse.pdf.condensed import condensed_blocks
from casetrack.parse.pdf.lines import Line, group_lines

# Above this many chars a page gets no column analysis (see `layout_page`).
MAX_CHARS_FOR_COLUMNS = 50_000
_PARAGRAPH_GAP_FACTOR = 1.3
_HEADING_SIZE_FACTOR = 1.15


@dataclass(slots=True)
class LayoutParagraph:
    lines: list[str]
    kind: ParagraphKind
    # Each line's words with their boxes, in the frame where the text reads left to right, and
    # that frame's turn (`orientation`: ltr, ttb, btt or rtl; pdf/chars.py): the page view's
    # highlight boxes (casetrack/view/) come from here.
    words: list[list[Word]] = field(default_factory=list)
    orientation: str = "ltr"


def _paragraph_breaks(lines: list[Line], fallback_pitch: float) -> list[bool]:
    """breaks[i] is True when line i starts a new paragraph (breaks[0] is always True)."""
    n = len(lines)
    breaks = [True] + [False] * (n - 1)
    if n < 2:
        return breaks
    pitches = [lines[i].top - lines[i - 1].top for i in range(1, n)]
    positive = [p for p in pitches if p > 0]
    block_pitch = statistics.median(positive) if len(positive) >= 3 else fallback_pitch
    left = min(ln.x0 for ln in lines)
    right = max(ln.x1 for ln in lines)
    size = statistics.median(ln.size for ln in lines)
    indent = max(0.9 * size, 6.0)  # about an em; smaller shifts are ragged glyph edges
    for i in range(1, n):
        prev, cur = lines[i - 1], lines[i]
        pitch = pitches[i - 1]
        # The local spacing (neighbouring pitches) and the block's usual pitch, whichever is
        # tighter: double-spaced pleadings keep their lines together, single-line paragraphs
        # separated by gaps in a single-spaced block still split.
        refs = [block_pitch]
        if i >= 2 and pitches[i - 2] > 0:
            refs.append(pitches[i - 2])
        if i < n - 1 and pitches[i] > 0:
            refs.append(pitches[i])
        ref = min(refs)
        if pitch > _PARAGRAPH_GAP_FACTOR * ref and pitch > 0.5 * size:
            breaks[i] = True
            continue
        if abs(cur.size - prev.size) >= max(1.0, 0.12 * max(cur.size, prev.size)):
            breaks[i] = True
            continue
        if cur.bold != prev.bold:
            breaks[i] = True
            continue
        prev_short = prev.x1 < right - 2 * indent
        cur_indented = cur.x0 - left >= indent
        prev_indented = prev.x0 - left >= indent
        nxt_indented = i + 1 < n and lines[i + 1].x0 - left >= indent
        if (
            cur_indented
            and not prev_indented
            and not nxt_indented
            and (prev_short or _sentence_break(prev, cur))
        ):
            # An indented first line. Without the short-line or sentence-end evidence this
            # would also split a hanging-indent item after its first line.
            breaks[i] = True
        elif (
            not cur_indented and prev_indented and prev_short and i >= 2 and lines[i - 2].x0 - left >= indent
        ):
            breaks[i] = True  # back to the margin after a hanging-indent item
    return breaks


_SENTENCE_END = tuple('.:;!?"\u201d)')


def _sentence_break(prev: Line, cur: Line) -> bool:
    first = cur.text[:1]
    return prev.text.endswith(_SENTENCE_END) and (first.isupper() or first.isdigit() or first in '("\u201c')


def _is_heading(lines: list[Line], body_size: float) -> bool:
    text = " ".join(ln.text for ln in lines)
    if len(lines) > 2 or len(text) > 120:
        return False
    size = sum(ln.size * len(ln.text) for ln in lines) / max(len(text), 1)
    if size >= _HEADING_SIZE_FACTOR * body_size:
        return True
    if all(ln.bold for ln in lines):
        return True
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 3 and len(text) <= 80 and all(c.isupper() for c in letters)


def paragraphs_from_blocks(blocks: list[list[Word]]) -> list[LayoutParagraph]:
    block_lines = [group_lines(b) for b in blocks]
    all_lines = [ln for bl in block_lines for ln in bl]
    if not all_lines:
        return []
    weighted = sorted((ln.size, len(ln.text)) for ln in all_lines)
    half, acc = sum(n for _, n in weighted) / 2, 0
    body_size = weighted[-1][0]
    for s, n in weighted:
        acc += n
        if acc >= half:
            body_size = s
            break
    page_pitches = [
        bl[i].top - bl[i - 1].top
        for bl in block_lines
        for i in range(1, len(bl))
        if bl[i].top > bl[i - 1].top
    ]
    fallback_pitch = statistics.median(page_pitches) if page_pitches else 1.2 * body_size
    out: list[LayoutParagraph] = []
    for lines in block_lines:
        breaks = _paragraph_breaks(lines, fallback_pitch)
        start = 0
        for i in range(1, len(lines) + 1):
            if i == len(lines) or breaks[i]:
                para = lines[start:i]
                kind = ParagraphKind.HEADING if _is_heading(para, body_size) else ParagraphKind.BODY
                out.append(LayoutParagraph([ln.text for ln in para], kind, [ln.words for ln in para]))
                start = i
    return out


def layout_page(chars: Sequence[dict[str, Any]], width: float, height: float) -> list[LayoutParagraph]:
    """Paragraphs (lists of line strings) of one page in reading order."""
    chars = dedupe_chars(chars)
    simple = len(chars) > MAX_CHARS_FOR_COLUMNS
    out: list[LayoutParagraph] = []
    for group in split_by_orientation(chars, width, height):
        words = words_from_chars(group)
        # Pathological pages (maps, charts drawn as text) skip column analysis: it is the
        # only super-linear step and such pages have no running text to keep apart.
        # A condensed transcript's sheet is read a column of pages at a time (pdf/condensed.py).
        blocks = [words] if simple else (condensed_blocks(words) or reading_blocks(words))
        orientation = orientation_of(group[0]) if group else "ltr"
        for para in paragraphs_from_blocks(blocks):
            para.orientation = orientation
            out.append(para)
    return out
