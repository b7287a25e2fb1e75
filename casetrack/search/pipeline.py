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

import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import pyarrow as pa

from casetrack.chunk.windows import window_spans
from casetrack.domain import SearchHit, SearchResponse
from casetrack.errors import CaseTrackError
from casetrack.search import stages
from casetrack.search.config import SearchConfig
from casetrack.search.fusion import reciprocal_rank_fusion
from casetrack.search.results import SearchFilters, add_context, by_document, filter_documents, provenance
from casetrack.search.snippet import best_snippet
from casetrack.store import lance_tables as lt
from casetrack.store.case_store import CaseStore, doc_of_chunk, gen_of_chunk

# Reads that run beside query encoding (one search uses at most one at a time; two for
# concurrent searches in the daemon).
_IO = ThreadPoolExecutor(max_workers=2, thread_name_prefix="casetrack-search-io")

# Which stored column each fused list scores candidates with.
_LIST_COLUMNS = {"dense": ["vector"], "e7": [lt.E7_VECTOR], "sparse": [lt.SPARSE_IDS, lt.SPARSE_VALUES]}


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


def search(
    store: CaseStore,
    models: stages.QueryModels,
    query: str,
    top_k: int = 10,
    documents: list[str] | None = None,
    offset: int = 0,
    config: SearchConfig | None = None,
    filters: SearchFilters | None = None,
    context_chars: int = 0,
    per_document: bool = False,
) -> SearchResponse:
    """Ranked chunks (and, with `per_document`, ranked documents) for `query`.

    `documents` is shorthand for `filters.documents`; `context_chars` > 0 adds that much of each
    hit's neighbouring chunks.
    """
    cfg = config or SearchConfig()
    if not query.strip():
        raise CaseTrackError("The search query is empty.", 'Example: casetrack search --case X "termination notice"')
    if not 1 <= top_k <= cfg.max_top_k:
        raise CaseTrackError(f"top_k must be between 1 and {cfg.max_top_k}.", "Use --top-k 10.")
    response = SearchResponse(query=query, case=store.record.name, stages_skipped=dict(models.skipped))
    clock = _Clock(response.timings_ms)
    visible = store.visible()
    wanted = filters or SearchFilters()
    if documents:
        wanted = replace(wanted, documents=tuple(documents))
    doc_filter = filter_documents(store, wanted)
    if doc_filter is not None and not doc_filter:
        response.warnings.append("No document in this case matches the filters.")
        return response
    lists = [name for name in cfg.lists_for(store.record.language) if name == "bm25" or _model(models, name) is not None]

    # -- stage 1: recall ----------------------------------------------------------------------
    rankings: dict[str, list[str]] = {}
    candidates: list[str] = []
    best_window: dict[str, int] = {}  # chunk -> its passage window that matched E1 best
    # Only what ranking needs is read for every candidate (each column is a random read per
    # row); text and provenance are read for the page of results at the end.
    base = ["chunk_id", "text"] if cfg.boost else ["chunk_id"]
    columns = base + [c for name in lists if name != "bm25" for c in _LIST_COLUMNS[name]]
    if "dense" in lists and cfg.dense_windows:
        columns.append(lt.WINDOW_VECTORS)
    bm25_rows: Future[pa.Table] | None = None
    if "bm25" in lists:
        hits = store.bm25.search(query, cfg.bm25_candidates, doc_filter)
        rankings["bm25"] = [h.chunk_id for h in hits if visible.get(h.doc_id) == gen_of_chunk(h.chunk_id)]
        candidates += rankings["bm25"]
        response.stages_used.append("bm25")
        # Read the BM25 candidates' ranking columns while the query is encoded and the ANN runs
        # (LanceDB and onnxruntime release the GIL: the two overlap on two cores).
        bm25_rows = _IO.submit(store.lance.fetch_table, list(rankings["bm25"]), columns)
        clock.lap("bm25")
    query_vectors: dict[str, Any] = {}
    for name in lists:
        if name != "bm25":
            query_vectors[name] = _encode_query(models, name, query, cfg.cache_queries)
    if "dense" in query_vectors:
        clock.lap("embed_query")
    parts: list[pa.Table] = []
    if "dense" in query_vectors and (cfg.dense_recall or "bm25" not in lists):
        where = lt.sql_in("doc_id", sorted(doc_filter)) if doc_filter else None
        near = store.lance.dense_search(query_vectors["dense"], cfg.dense_candidates, where, columns)
        if near.num_rows:
            keep = [visible.get(d) == g for d, g in zip(near.column("doc_id").to_pylist(),
                                                        near.column("gen").to_pylist(), strict=True)]
            near = near.filter(pa.array(keep))
            candidates += near.column("chunk_id").to_pylist()
            parts.append(near)
        clock.lap("dense")
    candidates = list(dict.fromkeys(candidates))

    # -- stage 2: every list ranks the candidate set; weighted RRF ----------------------------
    if bm25_rows is not None:
        parts.insert(0, bm25_rows.result())
    table = _candidate_table(store, candidates, parts, columns)
    ids = table.column("chunk_id").to_pylist()
    boosting = cfg.boost and "text" in table.column_names  # no text column: no chunks yet
    rows = table.select(base).to_pylist() if boosting else [{"chunk_id": c, "text": ""} for c in ids]

    def column(name: str) -> Any:
        return table.column(name) if name in table.column_names else None

    clock.lap("fetch_candidates")
    for name, vector in query_vectors.items():
        if name == "sparse":
            scores = stages.sparse_scores(vector, ids, column(lt.SPARSE_IDS), column(lt.SPARSE_VALUES))
        elif name == "dense" and cfg.dense_windows:
            windowed = stages.windowed_dense_scores(vector, ids, column("vector"), column(lt.WINDOW_VECTORS))
            scores, best_window = windowed.scores, windowed.best_window
            if windowed.with_windows:
                response.stages_used.append("dense_windows")
            elif scores:
                response.stages_skipped["dense_windows"] = (
                    "this case's chunks were embedded before passage windows: run "
                    f'`casetrack reembed --case "{store.record.name}"` to add them'
                )
        else:
            scores = stages.dense_scores(vector, ids, column(_LIST_COLUMNS[name][0]))
        rankings[name] = stages.rank_by(scores)
        if name != "dense":
            response.stages_used.append(name)
        clock.lap(name)
    if "dense" in rankings:
        response.stages_used.insert(1 if "bm25" in rankings else 0, "dense")
    fused = dict(reciprocal_rank_fusion(rankings, k=cfg.rrf_k, weights=cfg.weights))
    if len(rankings) > 1:
        response.stages_used.append("rrf")
    clock.lap("fuse")

    # -- stage 3: exact-match boost -----------------------------------------------------------
    if cfg.boost and fused:
        _boost(fused, rows, query, store.record.language, cfg)
        response.stages_used.append("boost")
        clock.lap("boost")

    # -- stage 4: late-interaction rerank ------------------------------------------------------
    if cfg.rerank and models.late is not None and models.late_codec and fused:
        _rerank(fused, store, models, query, cfg)
        response.stages_used.append("rerank")
        clock.lap("rerank")

    ordered = sorted(fused.items(), key=lambda kv: kv[1], reverse=True)
    documents_by_id = {e.doc_id: e for e in store.documents()}
    shown = ordered if per_document else ordered[offset : offset + top_k]
    fetched = store.lance.fetch_chunks([c for c, _ in shown])

    def hit(chunk_id: str, score: float) -> SearchHit:
        row = fetched[chunk_id]
        return SearchHit(
            chunk_id=chunk_id,
            text=row["text"],
            score=round(score, 6),
            provenance=provenance(row, documents_by_id),
            snippet=best_snippet(
                row["text"], query, store.bm25.analyzer, focus=_window(row["text"], best_window.get(chunk_id))
            ),
        )

    response.hits = [hit(c, s) for c, s in ordered[offset : offset + top_k] if c in fetched]
    if context_chars > 0:
        response.hits = add_context(store, response.hits, fetched, context_chars)
    if per_document:
        everything = [hit(c, s) for c, s in ordered if c in fetched]
        response.documents = by_document(everything, top_k)
    clock.lap("fetch")
    clock.total()
    return response


def _candidate_table(store: CaseStore, candidates: list[str], parts: list[pa.Table], columns: list[str]) -> pa.Table:
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


def _window(text: str, index: int | None) -> tuple[int, int] | None:
    """The character span of a chunk's passage window `index` (as embedded at ingest)."""
    if index is None:
        return None
    spans = window_spans(text)
    return spans[index] if index < len(spans) else None


def _model(models: stages.QueryModels, name: str) -> Any:
    return {"dense": models.dense, "e7": models.e7, "sparse": models.sparse}[name]


def _encode_query(models: stages.QueryModels, name: str, query: str, cache: bool = True) -> Any:
    """The query's vector for list `name`, from a small cache: paging (`offset`), the
    per-document view and a model asking again all repeat a query (E1 costs ~10-15 ms)."""
    model = _model(models, name)
    if not cache:
        return model.encode_queries([query])[0]
    key = (name, str(getattr(model, "fingerprint", id(model))), query)
    with _QUERY_CACHE_LOCK:
        if key in _QUERY_CACHE:
            _QUERY_CACHE.move_to_end(key)
            return _QUERY_CACHE[key]
    vector = model.encode_queries([query])[0]
    with _QUERY_CACHE_LOCK:
        _QUERY_CACHE[key] = vector
        while len(_QUERY_CACHE) > _QUERY_CACHE_SIZE:
            _QUERY_CACHE.popitem(last=False)
    return vector


_QUERY_CACHE: OrderedDict[tuple[str, str, str], Any] = OrderedDict()
_QUERY_CACHE_LOCK = threading.Lock()
_QUERY_CACHE_SIZE = 256


def _boost(fused: dict[str, float], rows: list[dict[str, Any]], query: str, language: str, cfg: SearchConfig) -> None:
    from casetrack.search.boost import boost_scores
    from casetrack.search.signals import extract_signals

    signals = extract_signals(query, language)
    texts = [(r["chunk_id"], r["text"]) for r in rows if r["chunk_id"] in fused]
    # A full boost is worth being ranked first in one more list.
    by_document = doc_of_chunk if cfg.boost_names_by_document else None
    scores = boost_scores(signals, texts, heading_weight=cfg.boost_heading_weight,
                          discount_common=cfg.boost_discount_common, document_of=by_document)
    for chunk_id, value in scores.items():
        fused[chunk_id] += cfg.boost_weight * value / (cfg.rrf_k + 1)


def _rerank(fused: dict[str, float], store: CaseStore, models: stages.QueryModels, query: str, cfg: SearchConfig) -> None:
    top = [cid for cid, _ in sorted(fused.items(), key=lambda kv: kv[1], reverse=True)[: cfg.rerank_top]]
    rows = store.lance.fetch_chunks(top, ["chunk_id", lt.LATE_VECTORS, lt.LATE_COUNT])
    query_tokens = models.late.encode_query(query)
    scores = stages.maxsim_scores(query_tokens, [rows[c] for c in top if c in rows], str(models.late_codec))
    # Blend by rank, like fusion: MaxSim is one more ranked list over the top candidates.
    for rank, chunk_id in enumerate(stages.rank_by(scores), start=1):
        fused[chunk_id] += cfg.rerank_weight / (cfg.rrf_k + rank)
