"""One search as asked: the query, the page wanted, filters and the pipeline's settings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from typing_extensions import TypedDict, Unpack

from casetrack.search.filters import SearchFilters
from casetrack.search.ranking.config import SearchConfig


class SearchOptions(TypedDict, total=False):
    """`CaseTrack.search`'s keyword arguments (each a field of `SearchRequest`)."""

    top_k: int
    documents: Sequence[str] | None
    offset: int
    config: SearchConfig | None
    filters: SearchFilters | None
    context_chars: int
    per_document: bool
    keywords: Sequence[str] | None
    likely_wording: str | None
    syntax: str | None
    rerank: bool | None


@dataclass(frozen=True)
class SearchRequest:
    """What `CaseTrack.search` passes down to the pipeline (one parameter list, not three).

    `documents` is shorthand for `filters.documents`; `context_chars` > 0 adds that much of each
    hit's neighbouring chunks; `per_document` also ranks whole documents; `keywords` and
    `likely_wording` are the caller's words for the answer (see `search/query/analysis.py`).
    """

    query: str
    top_k: int = 10
    offset: int = 0
    documents: tuple[str, ...] = ()
    filters: SearchFilters = field(default_factory=SearchFilters)
    config: SearchConfig = field(default_factory=SearchConfig)
    context_chars: int = 0
    per_document: bool = False
    # The caller's words (issue 27): alternative searches in the documents' own terms, and a guess
    # at how the document words the answer. Evidence of the answer's words; never shown back.
    keywords: tuple[str, ...] = ()
    likely_wording: str | None = None
    # "auto" (connectors when the query carries their syntax), "connectors" or "plain"
    # (search/connectors/syntax.py).
    syntax: str = "auto"

    @classmethod
    def of(cls, query: str, **options: Unpack[SearchOptions]) -> SearchRequest:
        """A request from `CaseTrack.search`'s arguments (None and absent mean the default)."""
        return cls(
            query,
            top_k=options.get("top_k", 10),
            offset=options.get("offset", 0),
            documents=tuple(options.get("documents") or ()),
            filters=options.get("filters") or SearchFilters(),
            config=_with_rerank(options.get("config") or SearchConfig(), options.get("rerank")),
            context_chars=options.get("context_chars", 0),
            per_document=options.get("per_document", False),
            keywords=tuple(options.get("keywords") or ()),
            likely_wording=options.get("likely_wording"),
            syntax=options.get("syntax") or "auto",
        )

    @property
    def rerank_asked(self) -> bool:
        """The late-interaction rerank (stage 4) is on for this search."""
        return self.config.rerank.on

    def effective_filters(self) -> SearchFilters:
        """The filters with `documents` folded in."""
        return replace(self.filters, documents=self.documents) if self.documents else self.filters


def _with_rerank(config: SearchConfig, rerank: bool | None) -> SearchConfig:
    """`config` with stage 4 switched on or off for one search (None: as configured)."""
    return config if rerank is None or rerank == config.rerank.on else config.with_(rerank=rerank)
