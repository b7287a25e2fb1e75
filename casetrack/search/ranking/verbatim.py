"""Passages the query reproduces come first (the ranking step "verbatim"): a search-wide
property, not a quoted-string mode.

A lawyer pastes a sentence to find where it came from or to check a quote. Fusion alone ranks
by what the text is about, so a similar clause of another contract (assignment, governing law,
renewal: the same boilerplate in other words) can outrank the exact text. Here every candidate
is aligned with the query on folded text (letters and digits only, so whitespace, line-break
hyphenation, quotes and case do not matter; `quote/align.py`), and a candidate that reproduces
the query closely enough is ranked above every candidate that does not, the closest first. A
longer verbatim overlap therefore never loses to semantic similarity.

Thresholds (bench/citations.py, verbatim lookup): a passage copied from the page aligns at 100;
with 3% of its characters garbled and hyphenation joined or split, at about 93-98; questions and
keyword queries almost never reach `MIN_SCORE`, because they do not reproduce a run of the text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from casetrack.quote.align import align
from casetrack.quote.fold import Folded, folded_words
from casetrack.store.case_store import CaseStore, chunk_id_for, doc_of_chunk, gen_of_chunk

# A query shorter than this (folded characters, about eight words) is not a passage.
MIN_QUERY_CHARS = 40
# Alignment similarity (0-100) from which a candidate counts as reproducing the query.
MIN_SCORE = 88.0
# ... and the share of the query's characters it must match in order.
MIN_COVERAGE = 0.85
# Share of the query's word pairs a candidate must hold to be aligned at all, and the share of
# the query a chunk must reproduce at its edge to be tried with its neighbour (a passage that
# runs over two chunks). A passage with 3% of its letters garbled keeps about 3/4 of its pairs.
MIN_PART = 0.3
EDGE = 3  # characters of slack at a chunk's edge
# How far above the best other candidate a reproducing one is put.
LIFT = 0.01
# Straddling candidates checked with their neighbour at most (more: the query is not a passage).
MAX_STRADDLES = 8
# The candidates aligned: BM25's first this many (a reproduced passage holds the query's words).
VERBATIM_BM25 = 30


@dataclass(frozen=True)
class VerbatimMatch:
    score: float  # 0-100 alignment similarity
    coverage: float  # 0-1 share of the query matched
    start: int  # the reproduced passage's span in the chunk's text
    end: int


@dataclass(frozen=True)
class Straddle:
    """A candidate holding the start or the end of the query at its own edge: the passage may
    run on into the neighbouring chunk (or page)."""

    chunk_id: str
    runs_on: bool  # the query continues after the chunk's end (else it began before its start)


def verbatim_matches(
    folded: Folded, words: Sequence[str], candidates: Iterable[tuple[str, str]]
) -> tuple[dict[str, VerbatimMatch], list[Straddle]]:
    """Candidates (chunk_id, text) whose text reproduces the query (`folded`, and its `words`:
    `Query.folded`, `Query.words`), with where they do; and the candidates that reproduce part of
    it at their edge (`join` checks them with a neighbour).

    A candidate is aligned only if it holds at least `MIN_PAIRS` of the query's word pairs (a
    copied passage keeps most of them even with noise; a text that does not hold them cannot
    reproduce the query, nor a good part of it), then folded and placed.
    """
    if len(folded.text) < MIN_QUERY_CHARS:
        return {}, []
    pairs = set(zip(words, words[1:], strict=False))
    found: dict[str, VerbatimMatch] = {}
    straddles: list[Straddle] = []
    for chunk_id, text in candidates:
        if not text:
            continue
        held = folded_words(text)
        if len(pairs & set(zip(held, held[1:], strict=False))) < MIN_PART * len(pairs):
            continue
        a = align(folded, text)
        if a is None:
            continue
        if a.score >= MIN_SCORE and a.coverage >= MIN_COVERAGE:
            found[chunk_id] = VerbatimMatch(a.score, a.coverage, a.start, a.end)
        elif a.coverage >= MIN_PART:
            if a.end >= len(text.rstrip()) - EDGE:
                straddles.append(Straddle(chunk_id, runs_on=True))
            elif a.start <= len(text) - len(text.lstrip()) + EDGE:
                straddles.append(Straddle(chunk_id, runs_on=False))
    return found, straddles


def join(folded: Folded, first: str, second: str, overlap: int) -> tuple[VerbatimMatch, VerbatimMatch] | None:
    """The query (`folded`) aligned over two consecutive chunks (`second` repeats its first
    `overlap` characters from the end of `first`): the part of the match in each, or None."""
    joined = first + "\n" + second[overlap:]
    a = align(folded, joined)
    if a is None or a.score < MIN_SCORE or a.coverage < MIN_COVERAGE:
        return None
    cut = len(first) + 1
    share_first = max(0, min(a.end, len(first)) - a.start) / max(a.end - a.start, 1)

    def part(start: int, end: int, share: float) -> VerbatimMatch:
        return VerbatimMatch(a.score, round(a.coverage * share, 4), start, end)

    in_second = (max(a.start, cut) - cut + overlap, max(a.end - cut + overlap, overlap))
    return part(a.start, min(a.end, len(first)), share_first), part(*in_second, 1 - share_first)


def lift(fused: dict[str, float], matches: dict[str, VerbatimMatch]) -> None:
    """Put every reproducing candidate above all others, the closest reproduction first (the
    fused score breaks ties, e.g. the two overlapping chunks that both hold the passage). Scores
    stay on the fused scale: just above the best non-reproducing candidate."""
    top = max((v for c, v in fused.items() if c not in matches), default=0.0)
    for chunk_id, m in matches.items():
        if chunk_id in fused:
            fused[chunk_id] = top + LIFT + m.score * m.coverage / 1e4 + fused[chunk_id] / 1e4


def join_straddles(store: CaseStore, folded: Folded, straddles: list[Straddle]) -> dict[str, VerbatimMatch]:
    """Each straddling candidate aligned together with the neighbouring chunk it runs into: the
    part of the match in each chunk of a pair that reproduces the query."""
    pairs: list[tuple[str, str]] = []
    for s in straddles:
        doc, gen, seq = doc_of_chunk(s.chunk_id), gen_of_chunk(s.chunk_id), int(s.chunk_id.rsplit("-", 1)[1])
        other = chunk_id_for(doc, gen, seq + 1 if s.runs_on else seq - 1)
        pairs.append((s.chunk_id, other) if s.runs_on else (other, s.chunk_id))
    wanted = sorted({c for pair in pairs for c in pair})
    rows = store.lance.fetch_chunks(wanted, ["chunk_id", "text", "char_start", "char_end", "page_index"])
    out: dict[str, VerbatimMatch] = {}
    for first, second in dict.fromkeys(pairs):
        a, b = rows.get(first), rows.get(second)
        if a is None or b is None:
            continue
        same_page = a["page_index"] == b["page_index"]
        overlap = max(0, int(a["char_end"]) - int(b["char_start"])) if same_page else 0
        found = join(folded, str(a["text"]), str(b["text"]), overlap)
        if found is not None:
            out[first], out[second] = found
    return out
