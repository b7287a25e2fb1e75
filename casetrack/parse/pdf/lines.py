"""Words → visual lines, shared by column detection and paragraph splitting."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from casetrack.parse.pdf.chars import Word


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
