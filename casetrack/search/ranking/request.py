"""One search as asked: the query, the page wanted, filters and the pipeline's settings."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from casetrack.search.filters import SearchFilters
from casetrack.search.ranking.config import SearchConfig


@dataclass(frozen=True)
class SearchRequest:
    """What `CaseTrack.search` passes down to the pipeline (one parameter list, not three).

    `documents` is shorthand for `filters.documents`; `context_chars` > 0 adds that much of each
    hit's neighbouring chunks; `per_document` also ranks whole documents.
    """

    query: str
    top_k: int = 10
    offset: int = 0
    documents: tuple[str, ...] = ()
    filters: SearchFilters = field(default_factory=SearchFilters)
    config: SearchConfig = field(default_factory=SearchConfig)
    context_chars: int = 0
    per_document: bool = False

    def effective_filters(self) -> SearchFilters:
        """The filters with `documents` folded in."""
        return replace(self.filters, documents=self.documents) if self.documents else self.filters
