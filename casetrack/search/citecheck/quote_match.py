"""A quote against one stretch of a document: where it aligns, how it differs, and a grade.

`align` (quote/align.py) finds the part of the text most like the quote, character by
character on folded text; a few words of context are added around it and `diff_words`
(quote/diff.py) compares the words. The grade:

- ``exact``: no word differs once case, accents, punctuation, quotes, spacing and line-break
  hyphens are set aside;
- ``close``: the aligned text is the quote with small differences: an alignment score of
  CLOSE_SCORE or more, at least MIN_MATCHED of the quote's words found (a misspelt or misread
  word counts as found), at most max(MIN_CHANGES, CHANGE_SHARE x words) words changed, added
  or left out otherwise, and never more than MAX_RUN of them in a row;
- ``none``: anything else (another passage, or no passage at all).

A quote of fewer than 12 letters and digits (`align.MIN_QUOTE_CHARS`) is too short to grade by
similarity: it is exact where its folded form occurs, else nothing. A quote with an ellipsis is
also matched part by part, in order. Quotes are matched in a region's `reading` text (running
headers and footers between its pages blanked out), and in its plain text when that does better.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace

from rapidfuzz import fuzz

from casetrack.quote.align import MIN_QUOTE_CHARS, Alignment, align
from casetrack.quote.diff import WordDiff, diff_words
from casetrack.quote.fold import Folded, fold, fold_text
from casetrack.search.citecheck.cited_text import Region

EXACT, CLOSE, NONE = "exact", "close", "none"
CLOSE_SCORE = 60.0
MIN_MATCHED = 0.75
CHANGE_SHARE = 0.15
MIN_CHANGES = 2
RIVALS = 2  # other alignments tried when the best one is not exact ...
RIVAL_MARGIN = 3.0  # ... and scores within this of it
MAX_RUN = 3  # words changed in a row ("shall" -> "is required to" is a run of 3)
CONTEXT_WORDS = 3

_WORD = re.compile(r"\S+")
_ELLIPSIS = re.compile(r"\.\s*\.\s*\.|…")
MAX_OMISSION = 3000  # characters a quote's "..." may leave out between two of its parts


@dataclass(frozen=True)
class Quote:
    text: str
    folded: Folded
    portuguese: bool

    @classmethod
    def of(cls, text: str, portuguese: bool) -> Quote:
        return cls(text, fold(text), portuguese)


@dataclass(frozen=True)
class Match:
    region: Region
    start: int  # the matched text: region.text[start:end]
    end: int
    score: float  # 0-100 (align's)
    diff: WordDiff | None  # None for an exact short quote
    grade: str

    @property
    def rank(self) -> tuple[int, int, float]:
        """Better first: the grade, then fewer words changed, then the alignment score."""
        changed = self.diff.changed_words if self.diff is not None else 0
        return ({EXACT: 2, CLOSE: 1}.get(self.grade, 0), -changed, self.score)

    @property
    def similarity(self) -> float:
        return round(self.score / 100, 3)

    def citation(self) -> str:
        return self.region.citation(self.start, self.end)

    def same_place(self, region: Region, start: int, end: int) -> bool:
        """True when this match overlaps region.text[start:end] (the same stored text)."""
        mine = self.region.page_spans(self.start, self.end)
        theirs = region.page_spans(start, end)
        return any(a[:2] == b[:2] and overlap(a[2:], b[2:]) > 0 for a in mine for b in theirs)

    def at(self, region: Region, start: int, end: int) -> bool:
        """True when this match is at the place region.text[start:end]: it starts there, or at
        least half of it lies there (a quote that runs a line past a cite is still at it)."""
        mine = sorted(self.region.page_spans(self.start, self.end), key=lambda s: (s[1], s[2]))
        theirs = region.page_spans(start, end)
        if not mine:
            return False
        first = mine[0]
        if any(first[:2] == b[:2] and b[2] <= first[2] < b[3] for b in theirs):
            return True
        inside = sum(overlap(a[2:], b[2:]) for a in mine for b in theirs if a[:2] == b[:2])
        return inside * 2 >= sum(a[3] - a[2] for a in mine)


def _widen(text: str, start: int, end: int, n: int) -> tuple[int, int]:
    """[start, end) grown by `n` whitespace-separated words on each side."""
    before = [m.start() for m in _WORD.finditer(text, max(0, start - 40 * n), start)]
    a = before[-n] if len(before) >= n else (before[0] if before else start)
    after = [m.end() for m in _WORD.finditer(text, end, min(len(text), end + 40 * n))]
    b = after[n - 1] if len(after) >= n else (after[-1] if after else end)
    return min(a, start), max(b, end)


def grade(score: float, diff: WordDiff) -> str:
    if not diff.differences and diff.matched == diff.quote_words:
        return EXACT
    allowed = max(MIN_CHANGES, round(CHANGE_SHARE * diff.quote_words))
    if (
        score >= CLOSE_SCORE
        and diff.matched >= MIN_MATCHED * diff.quote_words
        and diff.changed_words <= allowed
        and diff.longest_run <= MAX_RUN
    ):
        return CLOSE
    return NONE


def _short(quote: Quote, region: Region, lo: int, hi: int) -> Match | None:
    """A quote too short to align: exact where its folded form occurs."""
    text = region.folded(lo, hi, reading=True)
    at = text.text.find(quote.folded.text) if quote.folded.text else -1
    if at < 0:
        return None
    a, b = text.span(at, at + len(quote.folded.text))
    return Match(region, lo + a, lo + b, 100.0, None, EXACT)


def _graded(quote: Quote, region: Region, lo: int, text: str, start: int, end: int, score: float) -> Match:
    """The aligned span text[start:end] (+ context words) compared word by word and graded."""
    a, b = _widen(text, start, end, CONTEXT_WORDS)
    diff = diff_words(quote.text, text[a:b], quote.portuguese)
    if region.furniture:  # words of a running header or footer the quote leaves out are no difference
        kept = [
            d
            for d in diff.differences
            if d.quote
            or d.text_span is None
            or not region.in_furniture(lo + a + d.text_span[0], lo + a + d.text_span[1])
        ]
        diff = replace(diff, differences=kept)
    first, last = lo + a + diff.text_start, lo + a + diff.text_end
    if last <= first:
        first, last = lo + start, lo + end
    return Match(region, first, last, score, diff, grade(score, diff))


def match_in(quote: Quote, region: Region, lo: int = 0, hi: int | None = None) -> Match | None:
    """The best match of `quote` in region.text[lo:hi], graded; None when nothing aligns.

    When the folded quote occurs more than once and the first occurrence differs in words (a
    quote ending in "pelo" found inside "pelos"), the other occurrences are tried too."""
    hi = len(region.text) if hi is None else hi
    if hi <= lo:
        return None
    best = _match_text(quote, region, lo, hi, reading=True)
    if region.reading != region.text and (best is None or best.grade != EXACT):
        plain = _match_text(quote, region, lo, hi, reading=False)  # a quote that keeps a page number
        if plain is not None and (best is None or plain.rank > best.rank):
            best = plain
    if (best is None or best.grade != EXACT) and _ELLIPSIS.search(quote.text):
        parts = _in_parts(quote, region, lo, hi)
        if parts is not None and (best is None or parts.rank > best.rank):
            best = parts
    return best


def _parts_from(
    quote: Quote, parts: list[str], region: Region, lo: int, hi: int
) -> tuple[list[Match], int | None]:
    """Each part matched after the one before (all, or none), and where the first part ended."""
    found: list[Match] = []
    for part in parts:
        start = found[-1].end if found else lo
        end = min(hi, start + MAX_OMISSION + 2 * len(part)) if found else hi
        m = match_in(Quote.of(part, quote.portuguese), region, start, end)
        if m is None or m.grade not in (EXACT, CLOSE) or m.diff is None:
            return [], found[0].end if found else None
        found.append(m)
    return found, None


def _in_parts(quote: Quote, region: Region, lo: int, hi: int) -> Match | None:
    """A quote that leaves words out ("shall ... pay"): each part found in order, each at most
    MAX_OMISSION characters after the one before; exact when every part is, close when every
    part is at least close."""
    parts = [p for p in _ELLIPSIS.split(quote.text) if _WORD.search(fold(p).text)]
    if len(parts) < 2:
        return None
    found: list[Match] = []
    begin = lo
    for _attempt in range(3):  # the first part may also occur before the place the others follow
        found, first_end = _parts_from(quote, parts, region, begin, hi)
        if found or first_end is None:
            break
        begin = first_end
    if not found:
        return None
    diff = WordDiff(
        [d for m in found if m.diff for d in m.diff.differences],
        sum(m.diff.quote_words for m in found if m.diff),
        sum(m.diff.matched for m in found if m.diff),
        0,
        0,
    )
    grade_ = EXACT if all(m.grade == EXACT for m in found) else CLOSE
    return Match(region, found[0].start, found[-1].end, min(m.score for m in found), diff, grade_)


def _match_text(quote: Quote, region: Region, lo: int, hi: int, reading: bool) -> Match | None:
    """The best match in [lo, hi) of the region's reading text (else its text): the best character
    alignment, graded, then other alignments that score about as well (the same clause twice,
    once with the quote's words), and every exact occurrence of the folded quote when the first
    one differs in its words."""
    text = (region.reading if reading else region.text)[lo:hi]
    folded = region.folded(lo, hi, reading)
    found = align(quote.folded, folded)
    if found is None:
        return _short(quote, region, lo, hi) if len(quote.folded.text) else None
    best = _graded(quote, region, lo, text, found.start, found.end, found.score)
    if best.grade == EXACT:
        return best
    if found.score < 100:
        return _rivals(quote, region, lo, text, folded, found, best)
    needle = quote.folded.text
    at = folded.text.find(needle)
    while at >= 0:
        a, b = folded.span(at, at + len(needle))
        other = _graded(quote, region, lo, text, a, b, 100.0)
        if other.grade == EXACT:
            return other
        at = folded.text.find(needle, at + 1)
    return best


def _rivals(
    quote: Quote, region: Region, lo: int, text: str, folded: Folded, found: Alignment, best: Match
) -> Match:
    """`best` or a better-graded alignment among the next RIVALS that score within RIVAL_MARGIN."""
    masked = folded.text
    start, end = found.start, found.end
    for _ in range(RIVALS):
        a, b = bisect.bisect_left(folded.offsets, start), bisect.bisect_left(folded.offsets, end)
        masked = masked[:a] + "\0" * (b - a) + masked[b:]
        alt = fuzz.partial_ratio_alignment(quote.folded.text, masked, score_cutoff=found.score - RIVAL_MARGIN)
        if alt is None or alt.dest_end <= alt.dest_start:
            break
        start, end = folded.span(alt.dest_start, alt.dest_end)
        other = _graded(quote, region, lo, text, start, end, float(alt.score))
        if other.rank > best.rank:
            best = other
    return best


def could_match(quote: Quote, region: Region) -> bool:
    """False when the region cannot hold an exact or close match of `quote` (no alignment reaches
    CLOSE_SCORE), so it need not be matched word by word."""
    return _could_match(quote, region.reading) or (
        region.reading != region.text and _could_match(quote, region.text)
    )


def _could_match(quote: Quote, text: str) -> bool:
    folded, squashed = quote.folded.text, fold_text(text)
    if folded in squashed:
        return True
    if len(folded) < MIN_QUOTE_CHARS:
        return False
    return bool(fuzz.partial_ratio(folded, squashed, score_cutoff=CLOSE_SCORE - 5))


def overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))
