"""What a search returns: hits with provenance, the per-document view, stages and timings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from casetrack.domain.provenance import Provenance


@dataclass(frozen=True)
class SearchHit:
    chunk_id: str
    text: str
    score: float
    provenance: Provenance  # the pin-cite: the lines of `text` that answer the query
    snippet: str = ""  # the pin-cite's text, made readable (hyphenation joined, spaces collapsed)
    context_before: str | None = None  # the text before the snippet (chunk, then previous chunk)
    context_after: str | None = None  # the text after it (chunk, then next chunk)
    chunk_provenance: Provenance | None = None  # the whole chunk's range (None: same as provenance)
    relevance: float | None = None  # 0-1, how well it answers the query (search/relevance.py)
    match: str = ""  # relevance's label: exact, strong, good, weak, poor
    evidence: Any = None  # what relevance was judged from (ranking/relevance.py `Evidence`; not in JSON)
    # A terms-and-connectors search: the text of each occurrence of the expression (the first few).
    matched: list[str] | None = None

    near_duplicates: tuple[
        str, ...
    ] = ()  # near_duplicates="group": the copies whose results were folded in here

    @property
    def citation(self) -> str:
        """The pin-cite's citation."""
        return self.provenance.citation()

    @property
    def chunk_citation(self) -> str:
        return (self.chunk_provenance or self.provenance).citation()


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
    models_missing: list[str] = field(default_factory=list)  # slots run without: model not installed
    documents: list[DocumentHit] = field(default_factory=list)  # per-document view, when asked
    # The case's committed documents and chunks when it was searched (for a summary line).
    case_documents: int = 0
    case_chunks: int = 0
    # The best result is weak (search/relevance.py): the case probably does not say that.
    no_good_match: bool = False
    # The caller's words as the search used them (echoed: `--json`, search_case).
    keywords: list[str] = field(default_factory=list)
    likely_wording: str | None = None
    # How the query was read: "plain" (question or keywords) or "connectors" (terms and
    # connectors, search/connectors/); for connectors, the expression as parsed (fully
    # parenthesised) and how many passages match it in all.
    syntax: str = "plain"
    expression: str | None = None
    total_matches: int | None = None
