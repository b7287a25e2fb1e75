"""What a search returns: hits with provenance, the per-document view, stages and timings."""

from __future__ import annotations

from dataclasses import dataclass, field

from casetrack.domain.provenance import Provenance


@dataclass(frozen=True)
class SearchHit:
    chunk_id: str
    text: str
    score: float
    provenance: Provenance
    snippet: str = ""  # the sentences of `text` that best match the query
    context_before: str | None = None  # end of the previous chunk of the document (if asked)
    context_after: str | None = None  # start of the next chunk

    @property
    def citation(self) -> str:
        return self.provenance.citation()


@dataclass
class DocumentHit:
    """One document in the per-document view: its chunk scores aggregated, and its best passage."""

    document: str
    document_id: str
    score: float
    matching_chunks: int
    best: SearchHit


@dataclass
class SearchResponse:
    query: str
    case: str
    hits: list[SearchHit] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    stages_used: list[str] = field(default_factory=list)
    stages_skipped: dict[str, str] = field(default_factory=dict)  # slot -> why (tier, missing model)
    warnings: list[str] = field(default_factory=list)
    documents: list[DocumentHit] = field(default_factory=list)  # per-document view, when asked
    # The case's committed documents and chunks when it was searched (for a summary line).
    case_documents: int = 0
    case_chunks: int = 0
