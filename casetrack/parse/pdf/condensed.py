"""Condensed transcripts: a sheet holding two or four transcript pages side by side, read one
column of pages after the other, never line by line across the sheet.

The column finder (pdf/columns.py) will not split at a gutter whose sides do not read as running
text, and a condensed sheet's sides are half margin numbers, blank numbered lines and caption
pieces: its rows came out interleaved ("... DISTRICT COURT 1 routing refrigerated loads ...").
Here the margin numbers themselves say where each column starts: two or more vertical columns of
small numbers (right- or left-aligned, at least MIN_NUMBERS each, rising 1..25 down the column
and starting again at each stacked page) make a condensed sheet, and each column of words starts
at its margin numbers. A page with one such column (a full-size transcript page, pleading paper)
or none is left to pdf/columns.py.
"""

from __future__ import annotations

import re

from casetrack.parse.pdf.chars import Word

MIN_NUMBERS = 8  # as parse/transcript/margin.py: a transcript page has at least this many numbered lines
MAX_NUMBER = 35
ALIGN = 2.5  # points: margin numbers of one column share their right (or left) edge
RISING = 0.7  # share of consecutive numbers down a column that rise by 1-3

_NUMBER = re.compile(r"\d{1,2}")


def _aligned(numbers: list[Word], right: bool) -> list[list[Word]]:
    """The number words grouped by their shared right (or left) edge."""
    groups: list[list[Word]] = []

    def edge(w: Word) -> float:
        return w.x1 if right else w.x0

    for w in sorted(numbers, key=edge):
        if groups and edge(w) - edge(groups[-1][-1]) <= ALIGN:
            groups[-1].append(w)
        else:
            groups.append([w])
    return groups


def _is_margin(group: list[Word]) -> bool:
    if len(group) < MIN_NUMBERS:
        return False
    values = [int(w.text) for w in sorted(group, key=lambda w: w.top)]
    if 1 not in values:
        return False
    rising = sum(1 for a, b in zip(values, values[1:], strict=False) if 0 < b - a <= 3)
    return rising >= RISING * (len(values) - 1)


def margin_columns(words: list[Word]) -> list[float]:
    """Where each column of margin numbers starts (x, left to right); [] or one x when the page
    is no condensed sheet."""
    numbers = [w for w in words if _NUMBER.fullmatch(w.text) and 1 <= int(w.text) <= MAX_NUMBER]
    if len(numbers) < 2 * MIN_NUMBERS:
        return []
    best: list[float] = []
    for right in (True, False):
        starts = sorted(min(w.x0 for w in g) for g in _aligned(numbers, right) if _is_margin(g))
        if len(starts) > len(best):
            best = starts
    return best


def condensed_blocks(words: list[Word]) -> list[list[Word]] | None:
    """A condensed sheet's words as one block per column of pages (left to right; each column's
    stacked pages top to bottom), or None when the page is not one."""
    starts = margin_columns(words)
    if len(starts) < 2:
        return None
    cuts = [x - ALIGN for x in starts[1:]]
    columns: list[list[Word]] = [[] for _ in starts]
    for w in words:
        columns[sum(1 for c in cuts if w.x0 >= c)].append(w)
    return [c for c in columns if c]
