"""PDF page geometry: pdfplumber chars → words → reading-order blocks → lines → paragraphs.

Citations point at lines and paragraphs as a reader sees them on the page, so the layout is
rebuilt from glyph positions rather than from the content-stream order:

* Words come from pdfplumber's WordExtractor on de-duplicated chars; rotated text is turned
  upright first so it reads as lines too.
* Columns are found by a restricted XY-cut on the word boxes: a vertical gutter is accepted
  only for runs of rows where both sides look like running text, so table cells and line-
  number margins are never split off as columns. Rows are not cut at horizontal gaps first,
  which is what makes the classic XY-cut interleave two columns whose paragraph gaps align.
* Inside a block, words are grouped into lines by vertical overlap, and lines into paragraphs
  by vertical gap, first-line indentation and font changes.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from pdfminer.layout import LTChar, LTContainer, LTImage
from pdfplumber.utils.text import WordExtractor

from casetrack.domain import ParagraphKind

CID_RE = re.compile(r"\(cid:\d+\)")
# Control characters, U+FFFD and private-use code points: glyphs without a Unicode mapping.
_JUNK_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f\ufffd\ue000-\uf8ff]")

# Above this many chars a page gets no column analysis (see `layout_page`).
MAX_CHARS_FOR_COLUMNS = 50_000
_MAX_DEPTH = 6
_MIN_COLUMN_LINES = 3
_MIN_COLUMN_WORDS_PER_LINE = 3
_MIN_COLUMN_CHARS_PER_LINE = 18
_PARAGRAPH_GAP_FACTOR = 1.3
_HEADING_SIZE_FACTOR = 1.15

_BOLD_HINTS = ("bold", "black", "heavy", "semibold", "demi")


class Word(NamedTuple):
    x0: float
    top: float
    x1: float
    bottom: float
    text: str
    size: float
    bold: bool


@dataclass(slots=True)
class Line:
    words: list[Word]
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    bold: bool
    text: str


@dataclass(slots=True)
class LayoutParagraph:
    lines: list[str]
    kind: ParagraphKind


# --------------------------------------------------------------------------------------------
# page → chars
# --------------------------------------------------------------------------------------------


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


def _orientation(c: dict[str, Any]) -> str:
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
        orient = _orientation(c)
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
    return _JUNK_RE.sub("", text)


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


# --------------------------------------------------------------------------------------------
# words → lines
# --------------------------------------------------------------------------------------------


def group_lines(words: Iterable[Word]) -> list[Line]:
    """Visual lines: words whose vertical extents overlap by at least half the smaller one."""
    ordered = sorted(words, key=lambda w: (w.top, w.x0))
    if not ordered:
        return []
    groups: list[list[Word]] = []
    current = [ordered[0]]
    top, bottom = ordered[0].top, ordered[0].bottom
    for w in ordered[1:]:
        overlap = min(bottom, w.bottom) - max(top, w.top)
        smaller = max(min(bottom - top, w.bottom - w.top), 0.1)
        if overlap >= 0.5 * smaller:
            current.append(w)
            top, bottom = min(top, w.top), max(bottom, w.bottom)
        else:
            groups.append(current)
            current = [w]
            top, bottom = w.top, w.bottom
    groups.append(current)
    return [_make_line(g) for g in groups]


def _make_line(words: list[Word]) -> Line:
    words.sort(key=lambda w: w.x0)
    n_chars = sum(len(w.text) for w in words) or 1
    size = sum(w.size * len(w.text) for w in words) / n_chars
    bold_chars = sum(len(w.text) for w in words if w.bold)
    # Medians so a superscript or a drop cap does not move the line.
    return Line(
        words=words,
        x0=min(w.x0 for w in words),
        x1=max(w.x1 for w in words),
        top=statistics.median(w.top for w in words),
        bottom=statistics.median(w.bottom for w in words),
        size=size,
        bold=bold_chars == n_chars,
        text=" ".join(w.text for w in words),
    )


# --------------------------------------------------------------------------------------------
# words → reading-order blocks (columns)
# --------------------------------------------------------------------------------------------


def reading_blocks(words: list[Word]) -> list[list[Word]]:
    """Blocks of words in reading order; columns are read one after the other."""
    out: list[list[Word]] = []
    if words:
        _segment(words, 0, out)
    return out


def _segment(words: list[Word], depth: int, out: list[list[Word]]) -> None:
    split = None if depth >= _MAX_DEPTH or len(words) < 12 else _best_column_split(words)
    if split is None:
        out.append(words)
        return
    for part in split:
        for side in part:
            # Every part is a strict subset of `words`, so the recursion ends.
            _segment(side, depth + 1, out)


def _rows(words: list[Word], tolerance: float) -> list[list[Word]]:
    """Words clustered by top (chained within `tolerance`), top to bottom."""
    ordered = sorted(words, key=lambda w: w.top)
    rows: list[list[Word]] = [[ordered[0]]]
    last = ordered[0].top
    for w in ordered[1:]:
        if w.top - last <= tolerance:
            rows[-1].append(w)
        else:
            rows.append([w])
        last = w.top
    return rows


def _gutter_candidates(words: list[Word]) -> list[float]:
    """x positions of vertical whitespace valleys between words, deepest first.

    Coverage counts the words over each point; a gutter is a valley with words on both sides.
    Several water levels are tried because full-width titles or paragraphs above or below a
    two-column part cross the gutter and lift its coverage above zero.
    """
    xmin = math.floor(min(w.x0 for w in words))
    xmax = math.ceil(max(w.x1 for w in words))
    n = xmax - xmin
    if n < 20:
        return []
    diff = np.zeros(n + 2, dtype=np.int64)
    starts = np.array([int(w.x0) - xmin for w in words], dtype=np.int64)
    ends = np.array([math.ceil(w.x1) - xmin for w in words], dtype=np.int64)
    np.add.at(diff, np.clip(starts, 0, n), 1)
    np.add.at(diff, np.clip(ends, 0, n), -1)
    cov = np.cumsum(diff)[:n]
    peak = int(cov.max())
    found: list[tuple[int, float]] = []
    for frac in (0.0, 0.1, 0.25, 0.5):
        low = cov <= frac * peak
        edges = np.flatnonzero(np.diff(np.concatenate(([0], low.astype(np.int8), [0]))))
        for a, b in zip(edges[::2], edges[1::2], strict=True):
            if a == 0 or b >= n:  # margins, not gutters
                continue
            seg = cov[a:b]
            floor = seg.min()
            at = np.flatnonzero(seg == floor)
            # Centre of the longest stretch at the valley floor.
            runs = np.split(at, np.flatnonzero(np.diff(at) > 1) + 1)
            best = max(runs, key=len)
            x = xmin + a + (best[0] + best[-1] + 1) / 2
            if all(abs(x - fx) > 3 for _, fx in found):
                found.append((int(floor), x))
    found.sort(key=lambda t: t[0])
    return [x for _, x in found[:12]]


def _column_lines(words: list[Word], min_gutter: float) -> list[Line] | None:
    """The side's lines if it reads as running text, else None.

    Running text: several lines whose fragments (pieces between gaps as wide as a gutter)
    hold several words and a phrase's worth of characters each. Table cells, line numbers
    and form labels fail this; a side that is itself two columns passes, since each of its
    fragments is a column line.
    """
    lines = group_lines(words)
    if len(lines) < _MIN_COLUMN_LINES:
        return None
    n_words: list[int] = []
    n_chars: list[int] = []
    for ln in lines:
        count, chars = 1, len(ln.words[0].text)
        for a, b in zip(ln.words, ln.words[1:], strict=False):
            if b.x0 - a.x1 >= min_gutter:
                n_words.append(count)
                n_chars.append(chars)
                count, chars = 0, -1
            count += 1
            chars += len(b.text) + 1
        n_words.append(count)
        n_chars.append(chars)
    n_words.sort()
    n_chars.sort()
    mid = len(n_words) // 2
    if n_words[mid] >= _MIN_COLUMN_WORDS_PER_LINE and n_chars[mid] >= _MIN_COLUMN_CHARS_PER_LINE:
        return lines
    return None


def _percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _best_column_split(words: list[Word]) -> list[tuple[list[Word], ...]] | None:
    """Parts in reading order: 1-tuples flow as they are, 2-tuples are (left, right) columns."""
    heights = sorted(w.bottom - w.top for w in words)
    h = max(heights[len(heights) // 2], 1.0)
    min_gutter = max(4.0, 0.6 * h)
    rows = _rows(words, 0.3 * h)
    best: list[tuple[list[Word], ...]] | None = None
    best_score = 0
    for xc in _gutter_candidates(words):
        parts, score = _split_at(rows, xc, min_gutter)
        if score > best_score:
            best, best_score = parts, score
    return best


def _mode(values: list[float]) -> float | None:
    counts: dict[int, int] = {}
    for v in values:
        counts[round(v)] = counts.get(round(v), 0) + 1
    return float(max(counts, key=lambda k: counts[k])) if counts else None


def row_has(row: list[Word], xc: float, right: bool) -> bool:
    return any((w.x0 + w.x1 >= 2 * xc) == right for w in row)


def _crossing_flags(rows: list[list[Word]], xc: float, min_gutter: float) -> list[tuple[bool, bool]]:
    """(crossing, far) per row: whether the row cannot belong to a two-column run split at
    xc, and whether it sits far below the previous row (a footer, a section break), which
    ends the run above it.

    A row crosses when a word covers xc, or when its words come closer than a gutter around
    xc and it does not start at both columns' usual left edges: a centred date line crosses,
    a left-column line that overflows into the gutter does not.
    """
    sides: list[tuple[float, float, float] | None] = []
    for row in rows:
        left = [w for w in row if w.x0 + w.x1 < 2 * xc]
        right = [w for w in row if w.x0 + w.x1 >= 2 * xc]
        sides.append(
            (min(w.x0 for w in left), max(w.x1 for w in left), min(w.x0 for w in right))
            if left and right
            else None
        )
    left_start = _mode(
        [min(w.x0 for w in row if w.x0 + w.x1 < 2 * xc) for row in rows if row_has(row, xc, False)]
    )
    right_start = _mode(
        [min(w.x0 for w in row if w.x0 + w.x1 >= 2 * xc) for row in rows if row_has(row, xc, True)]
    )
    tops = [row[0].top for row in rows]
    pitches = sorted(b - a for a, b in zip(tops, tops[1:], strict=False))
    far = 3 * pitches[len(pitches) // 2] if pitches else math.inf
    flags: list[tuple[bool, bool]] = []
    for i, row in enumerate(rows):
        is_far = i > 0 and tops[i] - tops[i - 1] > far
        side = sides[i]
        if any(w.x0 < xc < w.x1 for w in row):
            flags.append((True, is_far))
            continue
        if side is None or side[2] - side[1] >= min_gutter:
            flags.append((False, is_far))
            continue
        aligned = (
            left_start is not None
            and right_start is not None
            and abs(side[0] - left_start) <= 1.5
            and abs(side[2] - right_start) <= 1.5
        )
        flags.append((not aligned, is_far))
    return flags


def _split_at(
    rows: list[list[Word]], xc: float, min_gutter: float
) -> tuple[list[tuple[list[Word], ...]], int]:
    # Maximal runs of rows that do not cross at xc; crossing rows (titles, full-width
    # paragraphs, wide tables, footers) stay in the flow between runs.
    runs: list[list[list[Word]]] = []
    crossing_runs: list[bool] = []
    for row, (crossing, far) in zip(rows, _crossing_flags(rows, xc, min_gutter), strict=True):
        if crossing or far or not runs or crossing_runs[-1]:
            runs.append([row])
            crossing_runs.append(crossing)
        else:
            runs[-1].append(row)
    parts: list[tuple[list[Word], ...]] = []
    flow: list[Word] = []
    score = 0
    for crossing, run_rows in zip(crossing_runs, runs, strict=True):
        run_words = [w for row in run_rows for w in row]
        if not crossing:
            left = [w for w in run_words if w.x0 + w.x1 < 2 * xc]
            right = [w for w in run_words if w.x0 + w.x1 >= 2 * xc]
            left_lines = _column_lines(left, min_gutter) if left else None
            right_lines = _column_lines(right, min_gutter) if right and left_lines else None
            # Gutter width from typical line ends and starts, so one overfull line or an
            # indented first line does not decide it.
            if (
                left_lines
                and right_lines
                and _percentile([ln.x0 for ln in right_lines], 0.2)
                - _percentile([ln.x1 for ln in left_lines], 0.8)
                >= min_gutter
            ):
                if flow:
                    parts.append((flow,))
                    flow = []
                parts.append((left, right))
                score += len(run_words)
                continue
        flow.extend(run_words)
    if flow:
        parts.append((flow,))
    return parts, score


# --------------------------------------------------------------------------------------------
# lines → paragraphs
# --------------------------------------------------------------------------------------------


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
                out.append(LayoutParagraph([ln.text for ln in para], kind))
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
        blocks = [words] if simple else reading_blocks(words)
        out.extend(paragraphs_from_blocks(blocks))
    return out
