"""Pin-cites: the few lines inside a chunk that answer the query, with their own provenance.

A chunk is ~500 tokens over many lines and paragraphs; a brief cites the sentence that says it.
`pin_span` picks that sentence inside the chunk's text: a span the query reproduces verbatim
(`exact`) first, else the sentence that holds the question's terms best (pin_terms.py: the
case's analyzer, stemmed and accent-folded; terms rare inside the chunk and long terms weigh
more, consecutive query terms found together more still, names and scene-setting words less),
else the passage window that matched by meaning (`focus`).
`pin_provenance` turns the span into page, paragraph, line and page-offset ranges, and
`pinned_hit` builds the search result around it.

Chunk text layout (parse/pagebuilder.py): lines joined by "\\n", paragraphs by "\\n\\n", no
line holds "\\n". So paragraphs and lines inside a chunk are counted from its start; line
numbers come from the chunk's stored `line_numbers` (a .txt's own numbers skip blank lines).
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from casetrack.chunk.sentences import sentence_spans
from casetrack.domain import Provenance, SearchHit
from casetrack.domain.views import ChunkView, source_json
from casetrack.search.pin_terms import Analyzer, Scorer, scorer
from casetrack.search.snippet import has_margin_numbers, readable
from casetrack.store.case_store import CaseStore
from casetrack.store.chunk_view import provenance, stored_line_pages
from casetrack.store.journal import JournalEntry

Span = tuple[int, int]

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


# -- text layout ------------------------------------------------------------------------------


def line_starts(text: str) -> list[int]:
    """Offsets where each line of the chunk's text begins (a paragraph break is one "\\n\\n")."""
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        if at + 1 < len(text) and text[at + 1] != "\n":
            starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


def _line_of(starts: Sequence[int], offset: int) -> int:
    return max(bisect.bisect_right(starts, offset) - 1, 0)


def _line_end(text: str, starts: Sequence[int], index: int) -> int:
    stop = text.find("\n", starts[index])
    return len(text) if stop < 0 else stop


def sentences(text: str) -> list[Span]:
    """Sentence spans of the chunk, never across a paragraph break (a heading is its own)."""
    out: list[Span] = []
    start = 0
    while start < len(text):
        stop = text.find("\n\n", start)
        stop = len(text) if stop < 0 else stop
        out += sentence_spans(text, start, stop)
        start = stop + 2
    return out or [_strip(text, 0, len(text))]


def _strip(text: str, start: int, end: int) -> Span:
    """The span without whitespace at its edges and without a word cut at either end."""
    start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
    while 0 < start < len(text) and not text[start - 1].isspace() and not text[start].isspace():
        start -= 1
    while end < len(text) and end > 0 and not text[end].isspace() and not text[end - 1].isspace():
        end += 1
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


# -- the span ---------------------------------------------------------------------------------


def pin_span(
    text: str,
    query: str,
    analyzer: Analyzer,
    focus: Span | None = None,
    exact: Span | None = None,
    max_lines: int = 6,
    widen_lines: int = 12,
    windows: Sequence[tuple[Span, float]] | None = None,
) -> Span:
    """The character span inside the chunk's `text` that answers `query` best.

    `exact`: a span the query reproduces verbatim (used as is, its edges moved off mid-word);
    else the best sentence by query terms (pin_terms.py), widened by its neighbours while it is
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
        span = _strip(text, *exact)
        if span[1] > span[0]:
            return span
    spans = sentences(text)
    terms = scorer([text[s:e] for s, e in spans], query, analyzer)
    scores = [terms.score(text[s:e]) for s, e in spans]
    combined = _with_meaning(spans, scores, windows)
    best = max(range(len(spans)), key=lambda i: (combined[i], -i))
    if focus is not None and terms.distinct(text[slice(*spans[best])]) == 0:
        best = _in_focus(spans, scores, focus, best)
    starts = line_starts(text)
    span = _trim(text, starts, spans[best], terms, max_lines, focus)
    if span != spans[best]:
        return span
    asked = [terms.distinct(text[s:e]) > 0 for s, e in spans]
    scores = [sc if ok else 0.0 for sc, ok in zip(scores, asked, strict=True)]
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
    return _line_of(starts, max(span[1] - 1, span[0])) - _line_of(starts, span[0]) + 1


def _trim(
    text: str, starts: Sequence[int], span: Span, terms: Scorer, max_lines: int, focus: Span | None
) -> Span:
    """`span` itself, or its best window of `max_lines` lines when it is longer."""
    first, last = _line_of(starts, span[0]), _line_of(starts, max(span[1] - 1, span[0]))
    if last - first + 1 <= max_lines:
        return span
    windows: list[Span] = []
    for k in range(first, last - max_lines + 2):
        a = max(span[0], starts[k])
        b = min(span[1], _line_end(text, starts, k + max_lines - 1))
        windows.append(_strip(text, a, b))
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


# -- provenance -------------------------------------------------------------------------------


def pin_provenance(
    chunk: Provenance,
    text: str,
    start: int,
    end: int,
    line_numbers: list[int] | None,
    line_confidences: list[float] | None = None,
    line_pages: list[int] | None = None,
) -> Provenance:
    """The provenance of text[start:end] inside the chunk `chunk` (char offsets in page terms).

    `line_numbers`: the stored number of each line of the chunk's text. Without them (rows
    ingested before they were stored) paged formats count lines from the chunk's first line;
    unpaged ones (a .txt's numbers skip blank lines) count from the chunk's first line inside its
    first paragraph and back from its last line inside its last one, else the citation stops at
    the paragraph (`lines_citable=False`; line_start/line_end then bound the span's lines).
    `line_confidences` (OCR'd chunks: each line's mean word confidence) give the span's own
    `ocr_confidence`, the mean over its lines. `line_pages` (transcripts: each line's printed
    page) give the span's own page:line cite, across a page break too (`Tr. 12:20-13:4`).
    """
    start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
    end = max(end, start)
    starts = line_starts(text)
    first, last = _line_of(starts, start), _line_of(starts, max(end - 1, start))
    para_start = chunk.paragraph_start + text.count("\n\n", 0, start)
    para_end = para_start + text.count("\n\n", start, end)
    citable = chunk.lines_citable
    if chunk.line_start <= 0:
        line_start, line_end = chunk.line_start, chunk.line_end
    elif line_numbers is not None and len(line_numbers) == len(starts):
        line_start, line_end = line_numbers[first], line_numbers[last]
    elif chunk.page is not None:
        line_start, line_end = chunk.line_start + first, chunk.line_start + last
    else:
        from_end = len(starts) - 1
        line_start = chunk.line_start + first
        line_end = chunk.line_end - (from_end - last)
        in_first = "\n\n" not in text[:end]
        in_last = "\n\n" not in text[start:]
        if in_first and not in_last:
            line_end = line_start + (last - first)
        elif in_last and not in_first:
            line_start = line_end - (last - first)
        elif not in_first:
            citable = False
    confidence = chunk.ocr_confidence
    if line_confidences and len(line_confidences) == len(starts):
        cited = line_confidences[first : last + 1]
        confidence = sum(cited) / len(cited)
    if chunk.transcript and line_pages and len(line_pages) == len(starts):
        page_end = line_pages[last] if line_pages[last] != line_pages[first] else None
        chunk = replace(chunk, transcript_page=line_pages[first], transcript_page_end=page_end)
    return replace(
        chunk,
        ocr_confidence=confidence,
        paragraph_start=para_start,
        paragraph_end=para_end,
        line_start=line_start,
        line_end=line_end if chunk.transcript_page_end is not None else max(line_end, line_start),
        char_start=chunk.char_start + start,
        char_end=chunk.char_start + end,
        lines_citable=citable,
        page_end=None,
    )


def lines_cite(chunk: Provenance, row: Mapping[str, Any], start: int, end: int) -> Provenance:
    """The provenance of the whole lines of the chunk `row` that hold text[start:end] (a mention
    is cited to its own lines, not to the whole chunk)."""
    text = str(row["text"])
    line_start, line_end = text.rfind("\n", 0, start) + 1, text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    return pin_provenance(
        chunk,
        text,
        line_start,
        line_end,
        stored_line_numbers(row),
        stored_line_confidences(row),
        stored_line_pages(row),
    )


def stored_line_numbers(row: Mapping[str, Any]) -> list[int] | None:
    """A chunk row's `line_numbers` (None for rows written before the column existed)."""
    value = row.get("line_numbers")
    return [int(n) for n in value] if isinstance(value, (list, tuple)) and value else None


def stored_line_confidences(row: Mapping[str, Any]) -> list[float] | None:
    """An OCR'd chunk row's `line_confidences` (None for native text and older rows)."""
    value = row.get("line_confidences")
    return [float(n) for n in value] if isinstance(value, (list, tuple)) and value else None


def pinned_hit(
    chunk_id: str,
    row: Mapping[str, Any],
    documents: dict[str, JournalEntry],
    score: float,
    query: str,
    analyzer: Analyzer,
    focus: Span | None = None,
    exact: Span | None = None,
    windows: Sequence[tuple[Span, float]] | None = None,
) -> SearchHit:
    """A search result whose `provenance` is the pin-cite and `chunk_provenance` the chunk's
    (`windows`: each passage window's span and E1 cosine with the query, see pin_span)."""
    text = str(row["text"])
    chunk = provenance(dict(row), documents)
    start, end = pin_span(
        text,
        query,
        analyzer,
        focus=focus,
        exact=exact,
        max_lines=MAX_LINES,
        widen_lines=WIDEN_LINES,
        windows=windows,
    )
    pin = pin_provenance(
        chunk,
        text,
        start,
        end,
        stored_line_numbers(row),
        stored_line_confidences(row),
        stored_line_pages(row),
    )
    return SearchHit(
        chunk_id=chunk_id,
        text=text,
        score=round(score, 6),
        provenance=pin,
        snippet=readable(text[start:end], has_margin_numbers(text)),
        chunk_provenance=chunk,
    )


def pin_chunk_view(store: CaseStore, view: ChunkView, query: str) -> ChunkView:
    """`get_chunk`'s view pinned to `query`: citation/source/snippet of the pin-cite, and the
    chunk's own as chunk_citation/chunk_source."""
    row = store.lance.fetch_chunks([view["chunk_id"]]).get(view["chunk_id"])
    if row is None:
        return view
    entry = store.journal.get(view["document_id"])
    hit = pinned_hit(
        view["chunk_id"], row, {entry.doc_id: entry} if entry else {}, 0.0, query, store.bm25.analyzer
    )
    chunk = hit.chunk_provenance or hit.provenance
    pinned: ChunkView = {
        **view,
        "citation": hit.citation,
        "citation_short": hit.provenance.citation_short(),
        "source": source_json(hit.provenance),
        "snippet": hit.snippet,
        "chunk_citation": chunk.citation(),
        "chunk_source": source_json(chunk),
    }
    return pinned


def pin_offsets(hit: SearchHit) -> Span:
    """The pin-cite's offsets inside the hit's chunk text."""
    chunk = hit.chunk_provenance or hit.provenance
    return hit.provenance.char_start - chunk.char_start, hit.provenance.char_end - chunk.char_start
