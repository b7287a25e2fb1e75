"""Where a quote sits in a text, allowing the small differences of copying and of OCR.

Both sides are folded (`fold.py`); rapidfuzz's partial-ratio alignment then finds the part of
the text most like the quote (an indel similarity, 0-100, tolerant of changed, missing and extra
characters). A quote copied from the text scores 100; with 3% of its characters garbled, about
94-97; a similar clause from another contract (the same boilerplate in other words) stays well
below. The aligned span is mapped back to the original text for citing.
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import fuzz
from rapidfuzz.distance import LCSseq

from casetrack.quote.fold import Folded, fold

# Below this many folded characters (about three words) a quote is not a passage.
MIN_QUOTE_CHARS = 12


@dataclass(frozen=True)
class Alignment:
    score: float  # 0-100: similarity of the quote to the best-aligned part of the text
    coverage: float  # 0-1: share of the quote's folded characters the aligned part matches
    start: int  # the aligned part's span in the original text
    end: int


def _folded(value: str | Folded) -> Folded:
    return value if isinstance(value, Folded) else fold(value)


def align(quote: str | Folded, text: str | Folded, original: str | None = None) -> Alignment | None:
    """The part of `text` most like `quote`, or None when either is too short to align.

    `original` is accepted for symmetry with callers that keep the raw text; spans are always
    in the coordinates `text` was folded from.
    """
    q, t = _folded(quote), _folded(text)
    if len(q.text) < MIN_QUOTE_CHARS or not t.text:
        return None
    found = fuzz.partial_ratio_alignment(q.text, t.text)
    if found is None:
        return None
    aligned = t.text[found.dest_start : found.dest_end]
    matched = LCSseq.similarity(q.text, aligned) if aligned else 0  # characters in common, in order
    coverage = min(1.0, matched / len(q.text)) if q.text else 0.0
    start, end = t.span(found.dest_start, found.dest_end)
    return Alignment(score=float(found.score), coverage=round(coverage, 4), start=start, end=end)
