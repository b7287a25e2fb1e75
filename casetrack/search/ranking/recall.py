"""Stage 1, recall: BM25 and E1's nearest neighbours gather the candidates, and their rows are read
once with only what ranking needs.

BM25 alone misses passages that share no words with the question; the dense neighbours add them.
A question that names its document adds the chunks of that document the rest of the question
finds (ranking/naming.py). Each candidate's row holds the stored vectors of the fused lists (and
its text when a step reads text); text and provenance for display are read for the page of hits
only, at the end.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from casetrack.domain.slots import BM25, FUSED_SLOTS, SLOTS
from casetrack.search.ranking import naming
from casetrack.search.ranking.context import QueryVector, SearchContext
from casetrack.search.ranking.trace import Trace
from casetrack.store import lance_tables as lt
from casetrack.store.bm25 import Bm25Hit
from casetrack.store.case_store import CaseStore, gen_of_chunk
from casetrack.store.journal import JournalEntry

# Which stored columns each fused list scores candidates with (names from domain/slots.py).
LIST_COLUMNS = {SLOTS[slot].list_name: list(SLOTS[slot].columns) for slot in FUSED_SLOTS}
MAX_FILTERED_CANDIDATES = 2000  # a Bates range naming at most this many chunks: all are candidates
# A dense search under a document filter that keeps at most this many chunks scans them all
# (bench/filter_latency.py: under a one-document filter the 100k-chunk ANN index returned < 10 rows).
EXACT_SCAN_CHUNKS = 20_000


@dataclass(frozen=True)
class Candidates:
    """The chunks recall gathered, each once, with what ranking reads of them."""

    table: pa.Table  # one row per candidate, in recall order: chunk_id and the ranking columns
    texts: tuple[tuple[str, str], ...]  # (chunk_id, text) in table order ("" when no step reads text)
    bm25: tuple[str, ...] = ()  # BM25's own order (committed chunks only)
    focus: naming.Focus | None = None  # the documents the query names, and the rest of it inside them
    vectors: Mapping[str, QueryVector] = field(default_factory=dict)  # the query's vector per list
    bm25_question: tuple[str, ...] = ()  # BM25 of the question alone, when the caller's words expand it
    wording: npt.NDArray[np.float32] | None = None  # E1 of the caller's likely wording

    @property
    def ids(self) -> list[str]:
        return [str(c) for c in self.table.column("chunk_id").to_pylist()]

    def column(self, name: str) -> pa.ChunkedArray | None:
        return self.table.column(name) if name in self.table.column_names else None


def ranking_columns(ctx: SearchContext) -> tuple[list[str], list[str]]:
    """(the columns read for every candidate, the base of them a text-reading step needs)."""
    cfg = ctx.config
    reads_text = cfg.boost.on or cfg.verbatim.on or cfg.topic.weight > 0
    base = ["chunk_id", "text"] if reads_text else ["chunk_id"]
    columns = base + [c for name in ctx.lists if name != BM25 for c in LIST_COLUMNS[name]]
    if "dense" in ctx.lists and cfg.fusion.dense_windows:
        columns.append(lt.WINDOW_VECTORS)
    return base, columns


@dataclass
class _Lexical:
    """What BM25 recalled: its order, the question alone's (with the caller's words), the focus list."""

    bm25: list[str] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)
    focus: naming.Focus | None = None

    @property
    def candidates(self) -> list[str]:
        return self.bm25 + self.asked + list(self.focus.ranking if self.focus else ())


def recall(ctx: SearchContext, trace: Trace) -> Candidates:
    """BM25 top-N (plus the focus list of a naming question) and E1's nearest neighbours, read
    once; BM25's rows are read while the query is encoded and the ANN query runs (LanceDB and
    onnxruntime release the GIL: the two overlap on two cores)."""
    store, cfg, scope = ctx.store, ctx.config, ctx.scope
    base, columns = ranking_columns(ctx)
    lexical = _lexical(ctx, trace) if BM25 in ctx.lists else _Lexical()
    candidates = lexical.candidates
    bm25_rows: Future[pa.Table] | None = None
    if BM25 in ctx.lists:
        read = list(dict.fromkeys(lexical.bm25 + lexical.asked))
        bm25_rows = ctx.submit(store.lance.fetch_table, read, columns)
    vectors = {name: ctx.vector(name, ctx.list_text(name)) for name in ctx.lists if name != BM25}
    wording = ctx.wording() if "dense" in vectors and cfg.words.wording_weight else None
    if "dense" in vectors:
        trace.lap("embed_query")
    parts: list[pa.Table] = []
    if "dense" in vectors and (cfg.recall.dense_recall or BM25 not in ctx.lists):
        dense = vectors["dense"]
        assert isinstance(dense, np.ndarray)
        for vector in [dense] + ([wording] if wording is not None and cfg.words.wording_recall else []):
            near = _nearest(ctx, vector, columns)
            candidates += near.column("chunk_id").to_pylist()
            parts.append(near)
        trace.lap("dense")
    if bm25_rows is not None:
        parts.insert(0, bm25_rows.result())
    if scope.chunks is not None:
        candidates, parts = _only_allowed(scope.chunks, candidates, parts)
        lexical = _Lexical(
            [c for c in lexical.bm25 if c in scope.chunks],
            [c for c in lexical.asked if c in scope.chunks],
            lexical.focus
            and naming.Focus(
                lexical.focus.documents, tuple(c for c in lexical.focus.ranking if c in scope.chunks)
            ),
        )
    table = candidate_table(store, list(dict.fromkeys(candidates)), parts, columns)
    trace.lap("fetch_candidates")
    texts = _texts(table, base)
    return Candidates(
        table, texts, tuple(lexical.bm25), lexical.focus, vectors, tuple(lexical.asked), wording
    )


def _lexical(ctx: SearchContext, trace: Trace) -> _Lexical:
    """BM25 of the query (the expanded text when the caller gave words; then the question alone
    too), and the focus list of a question that names its documents."""
    out = _Lexical()
    hits = _bm25(ctx, ctx.list_text(BM25))
    out.bm25 = _committed(ctx, hits)
    question_hits = hits
    if ctx.list_text(BM25) != ctx.query.text and ctx.config.words.question_bm25_weight:
        question_hits = _bm25(ctx, ctx.query.text)
        out.asked = _committed(ctx, question_hits)
    trace.used(BM25)
    trace.lap(BM25)
    if ctx.config.focus.on:
        out.focus = naming.focus(ctx, [h.doc_id for h in question_hits])
        if out.focus is not None:
            trace.used("focus")
        trace.lap("focus")
    return out


def _bm25(ctx: SearchContext, text: str) -> list[Bm25Hit]:
    allowed = None if ctx.scope.documents is None else set(ctx.scope.documents)
    return ctx.store.bm25.search(text, ctx.config.recall.bm25_candidates, allowed)


def _committed(ctx: SearchContext, hits: list[Bm25Hit]) -> list[str]:
    return [h.chunk_id for h in hits if ctx.scope.allows(h.doc_id, gen_of_chunk(h.chunk_id))]


def _nearest(ctx: SearchContext, vector: npt.NDArray[np.float32], columns: list[str]) -> pa.Table:
    """E1's nearest committed chunks to `vector` (an exact scan under a narrow document filter)."""
    scope = ctx.scope
    where = lt.sql_in("doc_id", sorted(scope.documents)) if scope.documents else None
    exact = scope.documents is not None and narrow_filter(scope.entries, scope.documents)
    near = ctx.store.lance.dense_search(vector, ctx.config.recall.dense_candidates, where, columns, exact)
    if not near.num_rows:
        return near
    docs, gens = near.column("doc_id").to_pylist(), near.column("gen").to_pylist()
    return near.filter(pa.array([scope.allows(d, g) for d, g in zip(docs, gens, strict=True)]))


def _texts(table: pa.Table, base: list[str]) -> tuple[tuple[str, str], ...]:
    ids = table.column("chunk_id").to_pylist()
    if "text" not in base or "text" not in table.column_names:  # no text column: no chunks yet
        return tuple((str(c), "") for c in ids)
    return tuple(zip((str(c) for c in ids), (str(t) for t in table.column("text").to_pylist()), strict=True))


def _only_allowed(
    allowed: frozenset[str], candidates: list[str], parts: list[pa.Table]
) -> tuple[list[str], list[pa.Table]]:
    """Candidates and rows read cut to the chunks `allowed` (a Bates range: the pages it names are
    few, so all of them become candidates when they are at most MAX_FILTERED_CANDIDATES)."""
    extra = sorted(allowed) if len(allowed) <= MAX_FILTERED_CANDIDATES else []
    value_set = pa.array(sorted(allowed), pa.string())
    parts = [p.filter(pc.is_in(p.column("chunk_id"), value_set=value_set)) for p in parts]
    return [c for c in candidates if c in allowed] + extra, parts


def candidate_table(
    store: CaseStore, candidates: list[str], parts: list[pa.Table], columns: list[str]
) -> pa.Table:
    """One row per candidate (first occurrence wins) with the ranking columns, from the rows the
    recall stages already read plus a fetch of any candidate they did not."""
    parts = [p for p in parts if p.num_rows]  # an empty read carries only chunk_id
    have = {c for part in parts for c in part.column("chunk_id").to_pylist()}
    missing = [c for c in candidates if c not in have]
    if missing or not parts:
        parts.append(store.lance.fetch_table(missing, columns))
    names = [c for c in ["chunk_id", *columns] if all(c in p.column_names for p in parts)]
    names = list(dict.fromkeys(names))
    merged = pa.concat_tables([p.select(names) for p in parts], promote_options="default")
    seen: set[str] = set()
    first = []
    for i, chunk_id in enumerate(merged.column("chunk_id").to_pylist()):
        if chunk_id not in seen:
            seen.add(chunk_id)
            first.append(i)
    return merged.take(pa.array(first, pa.int64())) if len(first) < merged.num_rows else merged


def narrow_filter(entries: tuple[JournalEntry, ...], doc_ids: frozenset[str]) -> bool:
    """Does the document filter keep few enough of the committed documents' (`entries`) chunks
    to scan them all (exact, never short)?"""
    return sum(e.expected_chunks for e in entries if e.doc_id in doc_ids) <= EXACT_SCAN_CHUNKS
