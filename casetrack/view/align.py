"""The stored lines of a page matched to the lines read again from its original (view/geometry.py).

Ingest and the view run the same layout (or the same OCR) over the same file, so most lines
match exactly; what differs is what ingest took out of a line after the layout: a transcript's
margin numbers and running headers (parse/transcript/), blank lines. So the two sequences are
aligned in order (a monotone alignment, so a line that repeats on the page — "Page 3",
"CONFIDENTIAL" — still lands on its own place): equal text first, then a stored line that ends a
read line (its margin number gone), then a close spelling (rapidfuzz), never a line left out.
"""

from __future__ import annotations

from collections.abc import Sequence

from casetrack.quote.fold import fold

_SAME = 3.0
_INSIDE = 2.0
_CLOSE = 1.0
_MIN_RATIO = 80.0  # rapidfuzz's ratio (0-100) below which two lines are different lines


def _key(text: str) -> str:
    """A line as compared: folded (case, accents, punctuation variants) and without spaces."""
    return "".join(ch for ch in fold(text).text if ch.isalnum())


def _scores(stored: Sequence[str], read: Sequence[str]) -> list[list[float]]:
    """How alike each stored line is to each read line (0: not the same line)."""
    from rapidfuzz.distance import Indel

    a = [_key(t) for t in stored]
    b = [_key(t) for t in read]
    out: list[list[float]] = []
    for s in a:
        row: list[float] = []
        for r in b:
            if not s or not r:
                row.append(0.0)
            elif s == r:
                row.append(_SAME)
            elif len(s) >= 4 and (r.endswith(s) or s in r or r in s and len(r) >= 0.8 * len(s)):
                row.append(_INSIDE)
            else:
                ratio = 100.0 * Indel.normalized_similarity(s, r, score_cutoff=_MIN_RATIO / 100.0)
                row.append(_CLOSE * ratio / 100.0 if ratio >= _MIN_RATIO else 0.0)
        out.append(row)
    return out


def align_lines(stored: Sequence[str], read: Sequence[str]) -> list[int | None]:
    """For each stored line, the index of the read line it is (None: not found), in order."""
    n, m = len(stored), len(read)
    if not n or not m:
        return [None] * n
    score = _scores(stored, read)
    # best[i][j]: the most alike total for stored[i:] against read[j:].
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = best[i], best[i + 1]
        for j in range(m - 1, -1, -1):
            take = score[i][j] + below[j + 1] if score[i][j] > 0 else 0.0
            row[j] = max(take, below[j], row[j + 1])
    out: list[int | None] = []
    i = j = 0
    while i < n and j < m:
        if score[i][j] > 0 and best[i][j] == score[i][j] + best[i + 1][j + 1]:
            out.append(j)
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            out.append(None)
            i += 1
        else:
            j += 1
    out += [None] * (n - len(out))
    return out
