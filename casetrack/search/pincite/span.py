"""Pin-cites: the few lines inside a chunk that answer the query.

A chunk is ~500 tokens over many lines and paragraphs; a brief cites the sentence that says it.
`pin_span` picks that sentence inside the chunk's text: a span the query reproduces verbatim
(`exact`) first, else the sentence that holds the question's terms best (pincite/terms.py: the
case's analyzer, stemmed and accent-folded; terms rare inside the chunk and long terms weigh
more, consecutive query terms found together more still, names and scene-setting words less:
query/roles.py), else the passage window that matched by meaning (`focus`).
"""

from __future__ import annotations

from collections.abc import Sequence

from casetrack.search.pincite.layout import Span, line_end, line_of, line_starts, sentences, strip_span
from casetrack.search.pincite.terms import Scorer, scorer
from casetrack.search.query.roles import Analyzer, QueryTerms

SHORT_WORDS = 12  # a best sentence shorter than this takes its neighbour along
# Neighbours holding a term of the question and scoring this share of the best sentence join
# it, up to MAX_NEIGHBOURS and WIDEN_LINES. Wider pins overlap the answer more often; measured
# on the CUAD PDFs (bench/cite_width.py --sweep, results whose chunk holds the gold answer),
# median lines / p90 / overlap: one neighbour at 0.6 of the best, within 6 lines: 3 / 6 / 0.71;
# four at 0.05 within 6 lines: 4 / 6 / 0.76; within 12 lines: 4 / 6 / 0.78 (few pins grow).
NEIGHBOUR_SHARE = 0.05
MAX_NEIGHBOURS = 4
MAX_LINES = 6  # a search result's pin-cite: a longer single sentence is cut to its best 6 lines
WIDEN_LINES = 12  # ... and neighbours that hold the question's terms may carry it this far
# Meaning beside the words (search results only): each sentence also scores the E1 cosine of the
# best passage window holding it (already computed by the dense stage, min-max scaled inside the
# chunk) times SEMANTIC_WEIGHT, beside its term score scaled to the chunk's best; and the
# runner-up sentence joins the pin when it scores JOIN_SHARE of the best and the pin stays within
# JOIN_LINES lines. Measured on the CUAD PDFs (results whose chunk holds the gold answer; the
# first 40 PDFs, then checked on the next 40 without changes): see bench/RESULTS.md.
SEMANTIC_WEIGHT = 0.5
JOIN_SHARE = 0.7
JOIN_LINES = 10


def pin_span(
    text: str,
    asked: QueryTerms,
    analyzer: Analyzer,
    focus: Span | None = None,
    exact: Span | None = None,
    max_lines: int = 6,
    widen_lines: int = 12,
    windows: Sequence[tuple[Span, float]] | None = None,
) -> Span:
    """The character span inside the chunk's `text` that answers the query best (`asked`: its
    terms by role, query/roles.py `term_roles`).

    `exact`: a span the query reproduces verbatim (used as is, its edges moved off mid-word);
    else the best sentence by query terms (pincite/terms.py), widened by its neighbours while it is
    very short, then by up to MAX_NEIGHBOURS that score NEIGHBOUR_SHARE of it; `focus` (the
    passage window that matched by meaning) decides when the best sentence holds none of the
    question's own terms (used whenever fewer than two, it chose worse than the words: 0.63
    against 0.66 on CUAD). At most `max_lines` lines unless one sentence is longer (then its
    best `max_lines`-line window) or neighbours that hold the question's terms too carry the
    answer on (then up to `widen_lines`). `windows` (each passage window's span and E1 cosine
    with the query) add meaning to the choice and may join the runner-up sentence (see
    SEMANTIC_WEIGHT).
    """
    if not text.strip():
        return 0, 0
    if exact is not None and exact[1] > exact[0]:
        span = strip_span(text, *exact)
        if span[1] > span[0]:
            return span
    spans = sentences(text)
    terms = scorer([text[s:e] for s, e in spans], asked, analyzer)
    scores = [terms.score(text[s:e]) for s, e in spans]
    combined = _with_meaning(spans, scores, windows)
    best = max(range(len(spans)), key=lambda i: (combined[i], -i))
    if focus is not None and terms.distinct(text[slice(*spans[best])]) == 0:
        best = _in_focus(spans, scores, focus, best)
    starts = line_starts(text)
    span = _trim(text, starts, spans[best], terms, max_lines, focus)
    if span != spans[best]:
        return span
    holds = [terms.distinct(text[s:e]) > 0 for s, e in spans]
    scores = [sc if ok else 0.0 for sc, ok in zip(scores, holds, strict=True)]
    span = _widen(text, starts, spans, scores, best, (max_lines, max(max_lines, widen_lines)))
    return _join_runner_up(starts, spans, combined, best, span) if windows else span


def _with_meaning(
    spans: Sequence[Span], scores: Sequence[float], windows: Sequence[tuple[Span, float]] | None
) -> list[float]:
    """Each sentence's term score scaled to the best, plus SEMANTIC_WEIGHT times the cosine of
    the best passage window holding it, min-max scaled inside the chunk (`scores` as they are
    without windows)."""
    if not windows:
        return list(scores)
    top = max(scores) or 1.0
    low = min(c for _, c in windows)
    near = [max((c for (a, b), c in windows if a < e and s < b), default=low) for s, e in spans]
    span_ = (max(near) - min(near)) or 1.0
    return [sc / top + SEMANTIC_WEIGHT * (n - min(near)) / span_ for sc, n in zip(scores, near, strict=True)]


def _join_runner_up(
    starts: Sequence[int], spans: Sequence[Span], combined: Sequence[float], best: int, span: Span
) -> Span:
    """`span` stretched over the runner-up sentence when it scores JOIN_SHARE of the best and
    the whole stays within JOIN_LINES lines."""
    order = sorted(range(len(spans)), key=lambda i: (-combined[i], i))
    if len(order) < 2 or combined[best] <= 0:
        return span
    other = order[1] if order[0] == best else order[0]
    if combined[other] < JOIN_SHARE * combined[best]:
        return span
    joined = (min(span[0], spans[other][0]), max(span[1], spans[other][1]))
    return joined if _lines(starts, joined) <= JOIN_LINES else span


def _in_focus(spans: Sequence[Span], scores: Sequence[float], focus: Span, fallback: int) -> int:
    """The best sentence inside the focus window; on a tie the one inside it, not at its edges
    (windows overlap by one sentence, so the middle one is what this window alone holds)."""
    inside = [i for i, (s, e) in enumerate(spans) if s < focus[1] and e > focus[0]]
    if not inside:
        return fallback
    edge = {inside[0], inside[-1]} if len(inside) > 2 else set()
    return max(inside, key=lambda i: (scores[i], i not in edge, -i))


def _lines(starts: Sequence[int], span: Span) -> int:
    return line_of(starts, max(span[1] - 1, span[0])) - line_of(starts, span[0]) + 1


def _trim(
    text: str, starts: Sequence[int], span: Span, terms: Scorer, max_lines: int, focus: Span | None
) -> Span:
    """`span` itself, or its best window of `max_lines` lines when it is longer."""
    first, last = line_of(starts, span[0]), line_of(starts, max(span[1] - 1, span[0]))
    if last - first + 1 <= max_lines:
        return span
    windows: list[Span] = []
    for k in range(first, last - max_lines + 2):
        a = max(span[0], starts[k])
        b = min(span[1], line_end(text, starts, k + max_lines - 1))
        windows.append(strip_span(text, a, b))
    scores = [terms.score(text[a:b]) for a, b in windows]
    anchor = focus[0] if focus is not None else span[0]
    return windows[max(range(len(windows)), key=lambda i: (scores[i], windows[i][0] <= anchor, -i))]


def _widen(
    text: str,
    starts: Sequence[int],
    spans: Sequence[Span],
    scores: Sequence[float],
    best: int,
    limits: tuple[int, int],
) -> Span:
    """The best sentence plus the neighbours it needs: the next (else the previous) while it is
    under SHORT_WORDS words, then up to MAX_NEIGHBOURS scoring at least NEIGHBOUR_SHARE of it
    (`scores` are 0 for sentences without a term of the question; the better side first).
    `limits`: the most lines for a short sentence's neighbours, and for the scoring ones."""
    lo = hi = best

    def fits(a: int, b: int, which: int = 0) -> bool:
        return _lines(starts, (spans[a][0], spans[b][1])) <= limits[which]

    def words() -> int:
        return len(text[spans[lo][0] : spans[hi][1]].split())

    while words() < SHORT_WORDS:
        if hi + 1 < len(spans) and fits(lo, hi + 1):
            hi += 1
        elif lo > 0 and fits(lo - 1, hi):
            lo -= 1
        else:
            break
    top, added = scores[best], 0
    while top > 0 and added < MAX_NEIGHBOURS:
        after = scores[hi + 1] if hi + 1 < len(spans) and fits(lo, hi + 1, 1) else -1.0
        before = scores[lo - 1] if lo > 0 and fits(lo - 1, hi, 1) else -1.0
        if max(after, before) < NEIGHBOUR_SHARE * top or max(after, before) <= 0:
            break
        if after >= before:
            hi += 1
        else:
            lo -= 1
        added += 1
    return spans[lo][0], spans[hi][1]
