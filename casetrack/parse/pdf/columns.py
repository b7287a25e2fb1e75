"""Words → reading-order blocks: columns found by a restricted XY-cut on the word boxes.

A vertical gutter is accepted only for runs of rows where both sides look like running text,
so table cells and line-number margins are never split off as columns. Rows are not cut at
horizontal gaps first, which is what makes the classic XY-cut interleave two columns whose
paragraph gaps align.
"""

from __future__ import annotations

import math

import numpy as np

from casetrack.parse.pdf.chars import Word
from casetrack.parse.pdf.lines import Line, group_lines

_MAX_DEPTH = 6
_MIN_COLUMN_LINES = 3
_MIN_COLUMN_WORDS_PER_LINE = 3
_MIN_COLUMN_CHARS_PER_LINE = 18


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
