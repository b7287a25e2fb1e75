"""A terms-and-connectors search, top to bottom: parse → scope → candidates → match → rank → page.

1. parse (parse.py): the expression, or an error pointing at its mistake.
2. scope (ranking/scope.py): the committed documents and what the filters allow.
3. candidates (candidates.py): the passages the case's tantivy index says could match.
4. match (match.py): each candidate's text checked against the expression; only exact matches stay.
5. rank: BM25 of the words matched (their idf from the index, their count in the passage) times
   the tightness of the best occurrence (the fewer words it spans, the higher); one place is
   cited once (overlapping passages repeat a sentence).
6. page: each hit pin-cited to the lines of its best occurrence (page, paragraph, lines), with
   the matched text in `matched`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import tantivy

from casetrack.domain import SearchHit, SearchResponse
from casetrack.errors import CaseTrackError, Fix
from casetrack.search.connectors.candidates import CandidateQuery
from casetrack.search.connectors.expr import Node, positive_words
from casetrack.search.connectors.match import Matcher, Occurrence, Words
from casetrack.search.connectors.parse import EXAMPLE, parse
from casetrack.search.pincite.provenance import lines_cite
from casetrack.search.pincite.snippet import has_margin_numbers, readable
from casetrack.search.ranking.page import add_context, by_document
from casetrack.search.ranking.request import SearchRequest
from casetrack.search.ranking.scope import Scope, scope_of
from casetrack.search.ranking.trace import Trace
from casetrack.store.case_store import CaseStore, doc_of_chunk, gen_of_chunk
from casetrack.store.chunk_view import provenance

# Candidate passages read at most: past this the search says it stopped (add words or filters).
MAX_CANDIDATES = 50_000
FETCH_BATCH = 2_000
# How many occurrences a hit shows in `matched`.
SHOWN_OCCURRENCES = 5
# The per-document view pins at most this many matching passages.
MAX_PER_DOCUMENT = 1_000
K1, B = 1.2, 0.75


@dataclass(frozen=True)
class ChunkMatch:
    """A passage that matches: its occurrences (word ranges) over its words."""

    chunk_id: str
    words: Words
    occurrences: tuple[Occurrence, ...]
    page: int = 0  # the chunk's page index and where it starts on it: one place, one result
    offset: int = 0
    score: float = 0.0

    @property
    def best(self) -> Occurrence:
        """The tightest occurrence, the first of equals."""
        return min(self.occurrences, key=lambda o: (o[1] - o[0], o[0]))


@dataclass
class Found:
    """Every matching passage of a search, and what it cost to find them."""

    matches: list[ChunkMatch]
    candidates: int
    stopped: bool  # the candidates passed MAX_CANDIDATES: some passages were not checked


def find_matches(store: CaseStore, node: Node, scope: Scope, trace: Trace | None = None) -> Found:
    """Every passage in `scope` where `node` occurs (unranked, in candidate order)."""
    query = CandidateQuery(store.bm25.schema, store.bm25.analyzer).of(node)
    if query is None:
        raise CaseTrackError(
            "The search expression has no word the keyword index can look up (only very common "
            "words such as 'the' or 'of').",
            fix=Fix(
                "Add a content word to it, e.g.",
                f"casetrack search --case \"{store.record.name}\" --syntax connectors '{EXAMPLE}'",
                "search_case",
                {"query": EXAMPLE, "syntax": "connectors"},
            ),
        )
    ids, stopped = _candidates(store, query, scope)
    if trace is not None:
        trace.lap("candidates")
    matcher = Matcher(node)
    matches = []
    for chunk_id, text, page, offset in _texts(store, ids):
        words = Words.of(text)
        occurrences = matcher.occurrences(words)
        if occurrences:
            matches.append(ChunkMatch(chunk_id, words, tuple(occurrences), page, offset))
    if trace is not None:
        trace.lap("match")
    return Found(matches, len(ids), stopped)


def _candidates(store: CaseStore, query: tantivy.Query, scope: Scope) -> tuple[list[str], bool]:
    schema = store.bm25.schema
    if scope.documents is not None:
        within = tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "doc_id", d)) for d in scope.documents]
        )
        query = tantivy.Query.boolean_query([(tantivy.Occur.Must, query), (tantivy.Occur.Must, within)])
    store.bm25.reload()
    searcher = store.bm25.index.searcher()
    result = searcher.search(query, limit=MAX_CANDIDATES)
    ids = []
    for _score, address in result.hits:
        doc = searcher.doc(address)
        chunk_id, doc_id = str(doc["chunk_id"][0]), str(doc["doc_id"][0])
        if scope.allows(doc_id, gen_of_chunk(chunk_id)) and (
            scope.chunks is None or chunk_id in scope.chunks
        ):
            ids.append(chunk_id)
    return ids, len(result.hits) >= MAX_CANDIDATES


def _texts(store: CaseStore, ids: list[str]) -> Iterator[tuple[str, str, int, int]]:
    """(chunk_id, text, page index, start on the page) of each candidate, read in batches."""
    columns = ["chunk_id", "text", "page_index", "char_start"]
    for start in range(0, len(ids), FETCH_BATCH):
        table = store.lance.fetch_table(ids[start : start + FETCH_BATCH], columns)
        if "text" not in table.column_names:
            continue
        yield from zip(
            (str(c) for c in table.column("chunk_id").to_pylist()),
            (str(t) for t in table.column("text").to_pylist()),
            (int(p or 0) for p in table.column("page_index").to_pylist()),
            (int(c or 0) for c in table.column("char_start").to_pylist()),
            strict=True,
        )


def search_connectors(store: CaseStore, request: SearchRequest) -> SearchResponse:
    """The exact matches of the terms-and-connectors expression `request.query`, ranked and
    pin-cited (`request.top_k`, `offset`, filters, `context_chars` and `per_document` as in the
    plain search)."""
    response = SearchResponse(query=request.query, case=store.record.name, syntax="connectors")
    trace = Trace(response)
    node = parse(request.query, store.record.name)
    response.expression = node.show()
    if request.keywords or request.likely_wording:
        response.warnings.append(
            "keywords and likely_wording are not used by a terms-and-connectors search: it finds exactly "
            "what the expression says (syntax plain reads the query as a question with them)."
        )
    trace.lap("parse")
    scope = scope_of(store, request.effective_filters())
    response.case_documents = len(scope.entries)
    response.case_chunks = sum(e.expected_chunks for e in scope.entries)
    trace.lap("filters")
    if scope.empty_because is not None:
        response.warnings.append(scope.empty_because)
        response.total_matches = 0
        trace.finish("filters")
        return response
    found = find_matches(store, node, scope, trace)
    trace.used("connectors")
    ranked = _distinct(_ranked(store, node, found.matches))
    response.total_matches = len(ranked)
    trace.lap("rank")
    if found.stopped:
        response.warnings.append(
            f"The expression's words are in more than {MAX_CANDIDATES:,} passages; only those were checked. "
            "Add a word, a tighter connector or a filter (document, date, type) to check them all."
        )
    if not ranked:
        response.warnings.append(
            f"No passage matches {node.show()} (the expression as read). Loosen a connector "
            "(/s → /p, w/5 → w/15), add ! to a word for its other endings, or search the words as "
            "plain text with syntax plain."
        )
    shown = ranked[request.offset : request.offset + request.top_k]
    patterns = [w.pattern() for w in dict.fromkeys(positive_words(node))]
    documents = {e.doc_id: e for e in scope.entries}
    rows = store.lance.fetch_chunks([m.chunk_id for m in shown])
    response.hits = [_hit(m, rows[m.chunk_id], documents, patterns) for m in shown if m.chunk_id in rows]
    if request.context_chars > 0:
        response.hits = add_context(store, response.hits, rows, request.context_chars)
    if request.per_document and ranked:
        every = ranked[:MAX_PER_DOCUMENT]
        more = store.lance.fetch_chunks([m.chunk_id for m in every if m.chunk_id not in rows])
        rows.update(more)
        hits = [_hit(m, rows[m.chunk_id], documents, patterns) for m in every if m.chunk_id in rows]
        response.documents = by_document(hits, request.top_k)
    trace.finish("fetch")
    return response


def _ranked(store: CaseStore, node: Node, matches: list[ChunkMatch]) -> list[ChunkMatch]:
    """`matches` best first: BM25 of the words matched inside the occurrences, times tightness."""
    if not matches:
        return []
    patterns = [w.pattern() for w in dict.fromkeys(positive_words(node))]
    per_match: list[dict[int, list[str]]] = []
    surface: set[str] = set()
    for m in matches:
        inside = {i for lo, hi in m.occurrences for i in range(lo, hi + 1)}
        by_pattern: dict[int, list[str]] = {}
        for i in sorted(inside):
            word = m.words.words[i]
            for p, pattern in enumerate(patterns):
                if pattern.fullmatch(word):
                    by_pattern.setdefault(p, []).append(word)
                    surface.add(word)
        per_match.append(by_pattern)
    analyzer = store.bm25.analyzer
    terms = {w: (analyzer.terms(w) or [w])[0] for w in surface}
    freqs, total = store.bm25.doc_freqs(list(set(terms.values())))
    avg = sum(len(m.words.words) for m in matches) / len(matches)
    scored = []
    for m, by_pattern in zip(matches, per_match, strict=True):
        norm = K1 * (1 - B + B * len(m.words.words) / max(avg, 1.0))
        score = 0.0
        for words in by_pattern.values():
            df = max((freqs.get(terms[w], 0) for w in words), default=0)
            idf = math.log(1 + (total - df + 0.5) / (df + 0.5))
            tf = len(words)
            score += idf * tf * (K1 + 1) / (tf + norm)
        lo, hi = m.best
        scored.append(replace(m, score=round(score * (1 + 1 / (1 + hi - lo)), 6)))
    return sorted(scored, key=lambda m: -m.score)


def _distinct(ranked: list[ChunkMatch]) -> list[ChunkMatch]:
    """Each place once: consecutive passages of a page share a sentence or two, so one occurrence
    can be matched in both; the better ranked keeps it."""
    seen: set[tuple[str, int, int, int]] = set()
    out = []
    for m in ranked:
        a, b = m.words.chars(m.best)
        key = (doc_of_chunk(m.chunk_id), m.page, m.offset + a, m.offset + b)
        if key in seen:
            continue
        seen.add(key)
        out.append(m)
    return out


def _hit(
    m: ChunkMatch, row: dict[str, Any], documents: dict[str, Any], patterns: list[re.Pattern[str]]
) -> SearchHit:
    """A result pinned to the whole lines that hold its best occurrence."""
    text = str(row["text"])
    start, end = m.words.chars(m.best)
    chunk = provenance(dict(row), documents)
    pin = lines_cite(chunk, row, start, end)
    matched = [_shown(m.words, o, patterns) for o in m.occurrences[:SHOWN_OCCURRENCES]]
    return SearchHit(
        chunk_id=m.chunk_id,
        text=text,
        score=m.score,
        provenance=pin,
        snippet=readable(
            text[pin.char_start - chunk.char_start : pin.char_end - chunk.char_start],
            has_margin_numbers(text),
        ),
        chunk_provenance=chunk,
        relevance=1.0,
        match="exact",
        matched=matched,
    )


# An occurrence up to this many words is shown whole; a longer one (/s, /p, AND) by its words.
SHOWN_WORDS = 12


def _shown(words: Words, occ: Occurrence, patterns: list[re.Pattern[str]]) -> str:
    """An occurrence as the reader sees it: its text, or its matched words with "…" between."""
    lo, hi = occ
    if hi - lo < SHOWN_WORDS:
        return " ".join(words.text[slice(*words.chars(occ))].split())
    hits = [i for i in range(lo, hi + 1) if any(p.fullmatch(words.words[i]) for p in patterns)] or [lo, hi]
    runs: list[list[int]] = []
    for i in hits:
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return " … ".join(" ".join(words.text[slice(*words.chars((r[0], r[-1])))].split()) for r in runs)
