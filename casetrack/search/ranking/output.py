"""The JSON shape of search results, shared by the CLI's `--json` and the MCP tools.

Names are an interface fixed by the skeleton issue: add fields, never rename.
"""

from __future__ import annotations

from casetrack.domain import SearchHit, SearchResponse
from casetrack.domain.views import HitJson, SearchJson, source_json


def response_json(r: SearchResponse) -> SearchJson:
    """The stable `--json` shape (names fixed by the skeleton issue; add fields, never rename)."""
    out: SearchJson = {
        "query": r.query,
        "case": r.case,
        "results": [hit_json(h) for h in r.hits],
        "stages_used": r.stages_used,
        "stages_skipped": r.stages_skipped,
        "timings_ms": r.timings_ms,
        "warnings": r.warnings,
        "no_good_match": r.no_good_match,
        "models_missing": r.models_missing,
        "keywords": r.keywords,
        "likely_wording": r.likely_wording,
        "syntax": r.syntax,
    }
    if r.expression is not None:
        out["expression"] = r.expression
        out["total_matches"] = r.total_matches or 0
    if r.documents:
        out["documents"] = [
            {
                "document": d.document,
                "document_id": d.document_id,
                "score": d.score,
                "matching_chunks": d.matching_chunks,
                "best": hit_json(d.best),
            }
            for d in r.documents
        ]
    return out


def hit_json(h: SearchHit) -> HitJson:
    """One result: the chunk's text, the pin-cite (citation, source, snippet) and the chunk's own
    citation and range (+ "context" when neighbours were asked for)."""
    p = h.provenance
    chunk = h.chunk_provenance or p
    out: HitJson = {
        "chunk_id": h.chunk_id,
        "text": h.text,
        "snippet": h.snippet,
        "score": h.score,
        "citation": h.citation,
        "citation_short": p.citation_short(),
        "source": source_json(p),
        "chunk_citation": chunk.citation(),
        "chunk_source": source_json(chunk),
        "relevance": h.relevance,
        "match": h.match,
    }
    if h.matched is not None:
        out["matched"] = h.matched
    if h.context_before is not None or h.context_after is not None:
        out["context"] = {"before": h.context_before, "after": h.context_after}
    if h.near_duplicates:
        out["near_duplicates"] = list(h.near_duplicates)
    return out
