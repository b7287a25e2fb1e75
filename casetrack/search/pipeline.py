"""The four-stage search: recall → fusion → boost → rerank, over committed chunks only.

1. Recall: tantivy BM25 top-N (analyzer tokens, quoted phrases) plus E1 nearest neighbours
   (BM25 alone misses passages that share no words with the question).
2. Fusion: every enabled model ranks the whole candidate set from stored vectors (E1, E6, E7;
   BM25 by its own order), combined by weighted reciprocal rank fusion.
3. Boost: exact-match signals of the query (quoted phrases, citations, CNJ numbers, ...).
4. Rerank: late-interaction MaxSim over the top candidates, blended with the fused score.

Which lists and stages run is a `SearchConfig`; a stage whose model is missing or skipped by
the memory tier is left out and reported in `stages_skipped`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from casetrack.domain import SearchHit, SearchResponse
from casetrack.domain.slots import BM25, FUSED_SLOTS, SLOTS
from casetrack.errors import CaseTrackError, Fix
from casetrack.search import relevance, stages
from casetrack.search.candidates import candidate_table, narrow_filter, only_filtered, pin_windows
from casetrack.search.config import SearchConfig
from casetrack.search.fusion import reciprocal_rank_fusion
from casetrack.search.pin_terms import asked_text
from casetrack.search.pincite import pinned_hit
from casetrack.search.request import SearchRequest
from casetrack.search.results import add_context, by_document, filter_bates, filter_documents
from casetrack.search.runtime import Inline, SearchRuntime
from casetrack.store import lance_tables as lt
from casetrack.store.case_store import CaseStore, chunk_id_for, doc_of_chunk, gen_of_chunk
from casetrack.store.journal import JournalEntry

# The ranked list of E1 with the query's question alone (when a scene comes first).
QUESTION = "question"
# Straddling candidates checked with their neighbour at most (more: the query is not a passage).
MAX_STRADDLES = 8
# Which stored columns each fused list scores candidates with (names from domain/slots.py).
_LIST_COLUMNS = {SLOTS[slot].list_name: list(SLOTS[slot].columns) for slot in FUSED_SLOTS}


class _Clock:
    def __init__(self, timings: dict[str, float]) -> None:
        self.timings = timings
        self.started = self.last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.timings[name] = round(self.timings.get(name, 0.0) + (now - self.last) * 1000, 2)
        self.last = now

    def total(self) -> None:
        self.timings["total"] = round((time.perf_counter() - self.started) * 1000, 2)


@dataclass
class _Run:
    """One search in flight: its inputs and what the stages have found so far."""

    store: CaseStore
    models: stages.QueryModels
    query: str
    cfg: SearchConfig
    runtime: SearchRuntime | None
    response: SearchResponse
    clock: _Clock
    lists: list[str]
    doc_filter: set[str] | None
    visible: dict[str, int] = field(default_factory=dict)
    rankings: dict[str, list[str]] = field(default_factory=dict)
    best_window: dict[str, int] = field(
        default_factory=dict
    )  # chunk -> its passage window that matched E1 best
    window_sims: dict[str, Any] = field(default_factory=dict)  # chunk -> each passage window's E1 cosine
    query_vectors: dict[str, Any] = field(default_factory=dict)  # list name -> the query's vector
    exact_spans: dict[str, tuple[int, int]] = field(
        default_factory=dict
    )  # chunk -> span the query reproduces
    verbatim_scores: dict[str, float] = field(default_factory=dict)  # chunk -> alignment similarity (0-100)
    cosines: dict[str, float] = field(default_factory=dict)  # chunk -> E1 cosine (best passage window)
    focus_documents: frozenset[str] = frozenset()  # the documents the query names (search/naming.py)
    chunk_filter: set[str] | None = None  # only these chunks may be results (a Bates range)
    entries: list[JournalEntry] = field(default_factory=list)  # the committed documents, read once per search
    _doc_freqs: tuple[dict[str, int], int] | None = None

    def doc_freqs(self) -> tuple[dict[str, int], int]:
        """How many chunks hold each of the query's analyzed terms, and how many chunks there are
        (read once per search: naming and relevance both need them)."""
        if self._doc_freqs is None:
            bm25 = self.store.bm25
            self._doc_freqs = bm25.doc_freqs(bm25.analyzer.terms(self.query))
        return self._doc_freqs

    def submit(self, fn: Callable[..., pa.Table], *args: Any) -> Future[pa.Table]:
        return (self.runtime.io if self.runtime is not None else Inline()).submit(fn, *args)

    def encode(self, name: str, text: str | None = None) -> Any:
        model = self.models.for_list(name)
        text = self.query if text is None else text
        if self.runtime is None:
            return model.encode_queries([text])[0]
        return self.runtime.encode(name, model, text, self.cfg.cache_queries)


def search(
    store: CaseStore, models: stages.QueryModels, request: SearchRequest, runtime: SearchRuntime | None = None
) -> SearchResponse:
    """Ranked chunks (and, with `request.per_document`, ranked documents) for `request.query`.

    `runtime` holds the process's read threads and query cache (without one, reads run inline
    and nothing is cached).
    """
    cfg, query, top_k = request.config, request.query, request.top_k
    if not query.strip():
        raise CaseTrackError(
            "The search query is empty.",
            fix=Fix(
                "Example",
                f'casetrack search --case "{store.record.name}" "termination notice"',
                "search_case",
                {"query": "termination notice"},
            ),
        )
    if not 1 <= top_k <= cfg.max_top_k:
        raise CaseTrackError(f"top_k must be between 1 and {cfg.max_top_k}.", "Use --top-k 10.")
    response = SearchResponse(query=query, case=store.record.name, stages_skipped=dict(models.skipped))
    clock = _Clock(response.timings_ms)
    filters = request.effective_filters()
    entries = store.documents()  # read once: the filters, the exact-scan check and the page use them
    doc_filter = filter_documents(store, filters, entries)
    chunk_filter = filter_bates(store, filters)
    if chunk_filter is not None:
        on_pages = {doc_of_chunk(c) for c in chunk_filter}
        doc_filter = on_pages if doc_filter is None else doc_filter & on_pages
        if not chunk_filter:
            response.warnings.append(f"No page in this case carries a Bates number in {filters.bates}.")
            return response
    if doc_filter is not None and not doc_filter:
        response.warnings.append("No document in this case matches the filters.")
        return response
    lists = [
        name
        for name in cfg.lists_for(store.record.language)
        if name == BM25 or models.for_list(name) is not None
    ]
    run = _Run(store, models, query, cfg, runtime, response, clock, lists, doc_filter, store.visible())
    run.chunk_filter, run.entries = chunk_filter, entries
    table, rows = _recall(run)
    fused = _fuse(run, table)
    if cfg.boost and fused:  # stage 3: exact-match boost
        _boost(fused, rows, query, store.record.language, cfg)
        response.stages_used.append("boost")
        clock.lap("boost")
    if cfg.rerank and models.late is not None and models.late_codec and fused:  # stage 4: late interaction
        _rerank(fused, store, models, query, cfg)
        response.stages_used.append("rerank")
        clock.lap("rerank")
    if cfg.verbatim and fused:
        _verbatim(run, fused, rows)
    _page(run, sorted(fused.items(), key=lambda kv: kv[1], reverse=True), request)
    clock.total()
    return response


def _recall(run: _Run) -> tuple[pa.Table, list[dict[str, Any]]]:
    """Stage 1: BM25 and E1 nearest neighbours gather the candidates; returns one row per
    candidate with the columns ranking needs, and (chunk_id, text) rows for boost."""
    store, cfg, response, lists = run.store, run.cfg, run.response, run.lists
    candidates: list[str] = []
    # Only what ranking needs is read for every candidate (each column is a random read per
    # row); text and provenance are read for the page of results at the end.
    base = ["chunk_id", "text"] if cfg.boost or cfg.verbatim else ["chunk_id"]
    columns = base + [c for name in lists if name != BM25 for c in _LIST_COLUMNS[name]]
    if "dense" in lists and cfg.dense_windows:
        columns.append(lt.WINDOW_VECTORS)
    bm25_rows: Future[pa.Table] | None = None
    if BM25 in lists:
        hits = store.bm25.search(run.query, cfg.bm25_candidates, run.doc_filter)
        run.rankings[BM25] = [
            h.chunk_id for h in hits if run.visible.get(h.doc_id) == gen_of_chunk(h.chunk_id)
        ]
        candidates += run.rankings[BM25]
        response.stages_used.append(BM25)
        if cfg.focus:
            candidates += _focus(run, hits)
        # Read the BM25 candidates' ranking columns while the query is encoded and the ANN runs
        # (LanceDB and onnxruntime release the GIL: the two overlap on two cores).
        bm25_rows = run.submit(store.lance.fetch_table, list(run.rankings[BM25]), columns)
        run.clock.lap(BM25)
    query_vectors = {name: run.encode(name) for name in lists if name != BM25}
    if "dense" in query_vectors:
        run.clock.lap("embed_query")
    parts: list[pa.Table] = []
    if "dense" in query_vectors and (cfg.dense_recall or BM25 not in lists):
        where = lt.sql_in("doc_id", sorted(run.doc_filter)) if run.doc_filter else None
        exact = run.doc_filter is not None and narrow_filter(run.entries, run.doc_filter)
        near = store.lance.dense_search(query_vectors["dense"], cfg.dense_candidates, where, columns, exact)
        if near.num_rows:
            keep = [
                run.visible.get(d) == g
                for d, g in zip(
                    near.column("doc_id").to_pylist(), near.column("gen").to_pylist(), strict=True
                )
            ]
            near = near.filter(pa.array(keep))
            candidates += near.column("chunk_id").to_pylist()
            parts.append(near)
        run.clock.lap("dense")
    if bm25_rows is not None:
        parts.insert(0, bm25_rows.result())
    if run.chunk_filter is not None:
        candidates, parts = only_filtered(run.chunk_filter, run.rankings, candidates, parts)
    table = candidate_table(store, list(dict.fromkeys(candidates)), parts, columns)
    run.query_vectors = query_vectors
    boosting = (cfg.boost or cfg.verbatim) and "text" in table.column_names  # no text column: no chunks yet
    ids = table.column("chunk_id").to_pylist()
    rows = table.select(base).to_pylist() if boosting else [{"chunk_id": c, "text": ""} for c in ids]
    run.clock.lap("fetch_candidates")
    return table, rows


def _fuse(run: _Run, table: pa.Table) -> dict[str, float]:
    """Stage 2: every list ranks the whole candidate set from stored vectors; weighted RRF."""
    response, cfg = run.response, run.cfg
    ids = table.column("chunk_id").to_pylist()

    def column(name: str) -> Any:
        return table.column(name) if name in table.column_names else None

    for name, vector in run.query_vectors.items():
        if name == "sparse":
            scores = stages.sparse_scores(vector, ids, column(lt.SPARSE_IDS), column(lt.SPARSE_VALUES))
        elif name == "dense" and cfg.dense_windows:
            windowed = stages.windowed_dense_scores(vector, ids, column(lt.VECTOR), column(lt.WINDOW_VECTORS))
            scores, run.best_window, run.cosines = windowed.scores, windowed.best_window, windowed.best_cosine
            run.window_sims = _question_list(run, ids, column) or windowed.window_sims
            if windowed.with_windows:
                response.stages_used.append("dense_windows")
            elif scores:
                response.stages_skipped["dense_windows"] = (
                    "this case's chunks were embedded before passage windows: run "
                    f'`casetrack reembed --case "{run.store.record.name}"` to add them'
                )
        else:
            scores = stages.dense_scores(vector, ids, column(_LIST_COLUMNS[name][0]))
            if name == "dense":
                run.cosines = dict(scores)
        run.rankings[name] = stages.rank_by(scores)
        if name != "dense":
            response.stages_used.append(name)
        run.clock.lap(name)
    if "dense" in run.rankings:
        response.stages_used.insert(1 if BM25 in run.rankings else 0, "dense")
    focus = run.rankings.pop("focus", None)
    weights = {**cfg.weights, QUESTION: cfg.question_weight}
    fused = dict(reciprocal_rank_fusion(run.rankings, k=cfg.rrf_k, weights=weights))
    if focus is not None:
        _refocus(run, fused, focus)
    if len(run.rankings) > 1:
        response.stages_used.append("rrf")
    run.clock.lap("fuse")
    return fused


def _question_list(run: _Run, ids: list[str], column: Callable[[str], Any]) -> dict[str, Any] | None:
    """A query that sets a scene before its question ("Consider the supply agreement between
    Acme and Beta; what is the notice period?"): E1 of the question alone ranks the candidates
    as one more list, and its passage-window cosines are the ones the pin-cite reads (the
    scene's names point every window at the cover page). One more query encoding, only for such
    queries; None for the others."""
    asked = asked_text(run.query)
    if asked == run.query:
        return None
    vector = run.encode("dense", asked)
    windowed = stages.windowed_dense_scores(vector, ids, column(lt.VECTOR), column(lt.WINDOW_VECTORS))
    if run.cfg.question_weight:
        run.rankings[QUESTION] = stages.rank_by(windowed.scores)
        run.response.stages_used.append(QUESTION)
    return windowed.window_sims


def _page(run: _Run, ordered: list[tuple[str, float]], request: SearchRequest) -> None:
    """The page of hits (text, provenance, snippet, optional context) and the per-document view."""
    store, response = run.store, run.response
    top_k, offset, per_document = request.top_k, request.offset, request.per_document
    entries = run.entries
    documents_by_id = {e.doc_id: e for e in entries}
    # The case's size for a summary line, from the journal already read (no second pass).
    response.case_documents = len(entries)
    response.case_chunks = sum(e.expected_chunks for e in entries)
    shown = ordered if per_document else ordered[offset : offset + top_k]
    fetched = store.lance.fetch_chunks([c for c, _ in shown])

    def hit(chunk_id: str, score: float) -> SearchHit:
        row = fetched[chunk_id]
        focus, windows = pin_windows(
            row["text"], run.best_window.get(chunk_id), run.window_sims.get(chunk_id)
        )
        return pinned_hit(
            chunk_id,
            row,
            documents_by_id,
            score,
            run.query,
            store.bm25.analyzer,
            focus=focus,
            exact=run.exact_spans.get(chunk_id),
            windows=windows,
        )

    response.hits = _rate(run, [hit(c, s) for c, s in ordered[offset : offset + top_k] if c in fetched])
    if response.hits and offset == 0:
        response.no_good_match = max(h.relevance or 0.0 for h in response.hits) < relevance.NO_GOOD_MATCH
    if request.context_chars > 0:
        response.hits = add_context(store, response.hits, fetched, request.context_chars)
    if per_document:
        everything = [hit(c, s) for c, s in ordered if c in fetched]
        response.documents = by_document(everything, top_k)
        # Only each document's best passage is shown: rate those, not every candidate.
        for document, best in zip(
            response.documents, _rate(run, [d.best for d in response.documents]), strict=True
        ):
            document.best = best
    run.clock.lap("fetch")


def _rate(run: _Run, hits: list[SearchHit]) -> list[SearchHit]:
    return relevance.rate(
        hits,
        run.query,
        run.store.bm25.analyzer,
        run.doc_freqs(),
        run.cosines,
        run.verbatim_scores,
        run.store.record.language,
    )


def _boost(
    fused: dict[str, float], rows: list[dict[str, Any]], query: str, language: str, cfg: SearchConfig
) -> None:
    from casetrack.search.boost import boost_scores
    from casetrack.search.signals import extract_signals

    signals = extract_signals(query, language)
    texts = [(r["chunk_id"], r["text"]) for r in rows if r["chunk_id"] in fused]
    # A full boost is worth being ranked first in one more list.
    by_document = doc_of_chunk if cfg.boost_names_by_document else None
    scores = boost_scores(
        signals,
        texts,
        heading_weight=cfg.boost_heading_weight,
        discount_common=cfg.boost_discount_common,
        document_of=by_document,
    )
    for chunk_id, value in scores.items():
        fused[chunk_id] += cfg.boost_weight * value / (cfg.rrf_k + 1)
    if cfg.topic_weight:
        from casetrack.search.topic import topic_scores

        for chunk_id, value in topic_scores(query, texts).items():
            fused[chunk_id] += cfg.topic_weight * value / (cfg.rrf_k + 1)


def _focus(run: _Run, hits: list[Any]) -> list[str]:
    """When the query names a document (search/naming.py): BM25 of the rest of the question
    inside it, as one more ranked list ("focus"). Returns its chunk ids."""
    from casetrack.search.naming import COVERS_CHECKED, find_naming

    store = run.store
    docs = [d for d in dict.fromkeys(h.doc_id for h in hits) if d in run.visible][:COVERS_CHECKED]
    if not docs:
        return []
    rows = store.lance.fetch_chunks(
        [chunk_id_for(d, run.visible[d], 0) for d in docs], ["chunk_id", "doc_id", "text"]
    )
    covers = {str(r["doc_id"]): str(r["text"]) for r in rows.values()}
    for doc_id in covers:
        entry = store.journal.get(doc_id)
        if entry is not None:
            covers[doc_id] += "\n" + entry.name.rsplit(".", 1)[0].replace("_", " ")
    analyzer = store.bm25.analyzer
    naming = find_naming(run.query, analyzer, run.doc_freqs(), covers)
    if naming is None:
        return []
    within = set(naming.documents) & run.doc_filter if run.doc_filter is not None else set(naming.documents)
    found = store.bm25.search(naming.residual, run.cfg.bm25_candidates // 2, within)
    run.rankings["focus"] = [
        h.chunk_id for h in found if run.visible.get(h.doc_id) == gen_of_chunk(h.chunk_id)
    ]
    run.focus_documents = frozenset(within)
    run.response.stages_used.append("focus")
    run.clock.lap("focus")
    return run.rankings["focus"]


def _refocus(run: _Run, fused: dict[str, float], focus: list[str]) -> None:
    """In the named documents, their chunks trade places by the rest of the question (the focus
    list and, when the query sets a scene first, E1 of the question alone) and their fused order
    (search/naming.py `reorder_within`); the documents keep their standing. (Before, only a
    chunk holding the naming words lost at most one list's first place: the cover page still
    stood first on 14 of 28 naming questions of the fourth blind set. Measured on the fifth,
    unseen: chunk page@1 33 -> 38 / 80, @5 66 -> 68; CUAD span hit@1 .147 -> .353; bench/RESULTS.md.)"""
    from casetrack.search.naming import reorder_within

    rankings = [focus] + ([run.rankings[QUESTION]] if QUESTION in run.rankings else [])
    reorder_within(fused, run.focus_documents, rankings, run.cfg.rrf_k, doc_of_chunk)


def _verbatim(run: _Run, fused: dict[str, float], rows: list[dict[str, Any]]) -> None:
    """Candidates that reproduce the query go first (search/verbatim.py), also when the passage
    runs over two chunks."""
    from casetrack.search.verbatim import join_straddles, lift, verbatim_matches

    matches, straddles = verbatim_matches(
        run.query, ((r["chunk_id"], r["text"]) for r in rows if r["chunk_id"] in fused)
    )
    if straddles and len(straddles) <= MAX_STRADDLES:
        for chunk_id, match in join_straddles(run.store, run.query, straddles).items():
            if chunk_id not in matches or match.coverage > matches[chunk_id].coverage:
                matches[chunk_id] = match
                fused.setdefault(chunk_id, 0.0)
    if matches:
        lift(fused, matches)
        run.exact_spans = {c: (m.start, m.end) for c, m in matches.items()}
        run.verbatim_scores = {c: m.score for c, m in matches.items()}  # a split passage: each part
        run.response.stages_used.append("verbatim")
    run.clock.lap("verbatim")


def _rerank(
    fused: dict[str, float], store: CaseStore, models: stages.QueryModels, query: str, cfg: SearchConfig
) -> None:
    top = [cid for cid, _ in sorted(fused.items(), key=lambda kv: kv[1], reverse=True)[: cfg.rerank_top]]
    rows = store.lance.fetch_chunks(top, ["chunk_id", lt.LATE_VECTORS, lt.LATE_COUNT])
    query_tokens = models.late.encode_query(query)
    scores = stages.maxsim_scores(query_tokens, [rows[c] for c in top if c in rows], str(models.late_codec))
    # Blend by rank, like fusion: MaxSim is one more ranked list over the top candidates.
    for rank, chunk_id in enumerate(stages.rank_by(scores), start=1):
        fused[chunk_id] += cfg.rerank_weight / (cfg.rrf_k + rank)
