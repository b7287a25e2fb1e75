"""First search pipeline: tantivy BM25 and E1 dense nearest neighbours, fused with RRF.

Stages are named so that the four-stage pipeline (sparse, boost, late-interaction rerank) can
slot in without changing the response. Only committed documents, at their committed
generation, are ever returned.
"""

from __future__ import annotations

import difflib
import time
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from casetrack.domain import ExtractionMethod, Provenance, SearchHit, SearchResponse
from casetrack.errors import CaseTrackError, DocumentNotFoundError
from casetrack.search.fusion import reciprocal_rank_fusion
from casetrack.search.snippet import best_snippet
from casetrack.store.case_store import CaseStore, gen_of_chunk
from casetrack.store.journal import JournalEntry
from casetrack.store.lance_tables import sql_in


class QueryEncoder(Protocol):
    def encode_queries(self, texts: list[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class SearchConfig:
    bm25_candidates: int = 100
    dense_candidates: int = 100
    rrf_k: int = 60
    max_top_k: int = 100


def resolve_documents(store: CaseStore, names: list[str]) -> set[str]:
    """Map document names (or ids, or unique name fragments) to doc ids, with suggestions."""
    docs = store.documents()
    by_name = {d.name.casefold(): d.doc_id for d in docs}
    ids = {d.doc_id for d in docs}
    found: set[str] = set()
    for raw in names:
        key = raw.strip().casefold()
        if key in by_name:
            found.add(by_name[key])
            continue
        if raw in ids:
            found.add(raw)
            continue
        partial = [doc_id for name, doc_id in by_name.items() if key in name]
        if len(partial) == 1:
            found.add(partial[0])
            continue
        close = difflib.get_close_matches(key, list(by_name), n=3, cutoff=0.4)
        suggestion = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        if len(partial) > 1:
            suggestion = f" It matches {len(partial)} documents; use the full name."
        raise DocumentNotFoundError(
            f"No document named '{raw}' in case '{store.record.name}'.{suggestion}",
            f'List documents: casetrack case info "{store.record.name}"',
        )
    return found


def search(
    store: CaseStore,
    encoder: QueryEncoder | None,
    query: str,
    top_k: int = 10,
    documents: list[str] | None = None,
    offset: int = 0,
    config: SearchConfig | None = None,
) -> SearchResponse:
    cfg = config or SearchConfig()
    if not query.strip():
        raise CaseTrackError("The search query is empty.", 'Example: casetrack search --case X "termination notice"')
    if not 1 <= top_k <= cfg.max_top_k:
        raise CaseTrackError(f"top_k must be between 1 and {cfg.max_top_k}.", "Use --top-k 10.")
    started = time.perf_counter()
    response = SearchResponse(query=query, case=store.record.name)
    timings = response.timings_ms

    def lap(name: str, since: float) -> float:
        now = time.perf_counter()
        timings[name] = round((now - since) * 1000, 2)
        return now

    visible = store.visible()
    doc_filter = resolve_documents(store, documents) if documents else None
    want = top_k + offset
    t = time.perf_counter()

    bm25_hits = store.bm25.search(query, cfg.bm25_candidates, doc_filter)
    bm25_ranking = [h.chunk_id for h in bm25_hits if visible.get(h.doc_id) == gen_of_chunk(h.chunk_id)]
    t = lap("bm25", t)
    rankings = {"bm25": bm25_ranking}
    response.stages_used.append("bm25")

    if encoder is not None:
        vector = encoder.encode_queries([query])[0]
        t = lap("embed_query", t)
        where = sql_in("doc_id", sorted(doc_filter)) if doc_filter else None
        dense_rows = store.lance.dense_search(vector, cfg.dense_candidates, where)
        rankings["dense"] = [r["chunk_id"] for r in dense_rows if visible.get(r["doc_id"]) == r["gen"]]
        t = lap("dense", t)
        response.stages_used.append("dense")

    fused = reciprocal_rank_fusion(rankings, k=cfg.rrf_k)
    if len(rankings) > 1:
        response.stages_used.append("rrf")
    page = fused[offset:want]
    t = lap("fuse", t)

    rows = store.lance.fetch_chunks([cid for cid, _ in page])
    documents_by_id = {e.doc_id: e for e in store.documents()}
    for chunk_id, score in page:
        row = rows.get(chunk_id)
        if row is None:  # deleted between ranking and fetch
            continue
        response.hits.append(
            SearchHit(
                chunk_id=chunk_id,
                text=row["text"],
                score=round(score, 6),
                provenance=_provenance(row, documents_by_id),
                snippet=best_snippet(row["text"], query, store.bm25.analyzer),
            )
        )
    lap("fetch", t)
    timings["total"] = round((time.perf_counter() - started) * 1000, 2)
    return response


def _provenance(row: dict[str, object], documents: dict[str, JournalEntry]) -> Provenance:
    def num(key: str) -> int:
        value = row.get(key)
        return int(value) if isinstance(value, int) else 0

    page = row.get("page")
    confidence = row.get("ocr_confidence")
    entry = documents.get(str(row["doc_id"]))
    return Provenance(
        document=entry.name if entry else str(row["doc_id"]),
        document_id=str(row["doc_id"]),
        page=int(page) if isinstance(page, int) else None,
        paragraph_start=num("paragraph_start"),
        paragraph_end=num("paragraph_end"),
        line_start=num("line_start"),
        line_end=num("line_end"),
        char_start=num("char_start"),
        char_end=num("char_end"),
        extraction_method=ExtractionMethod(str(row.get("extraction_method") or "native")),
        ocr_confidence=float(confidence) if isinstance(confidence, float) else None,
        lines_citable=not (entry and entry.meta.get("file_type") == "docx"),
    )
