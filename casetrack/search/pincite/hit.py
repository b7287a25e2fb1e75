"""A search result or a `get_chunk` view pinned to the query: the chunk's text, the pin-cite as its
citation and snippet, and the chunk's own range beside it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from casetrack.domain import SearchHit
from casetrack.domain.views import ChunkView, source_json
from casetrack.search.pincite import span
from casetrack.search.pincite.layout import Span
from casetrack.search.pincite.provenance import pin_provenance, stored_line_confidences, stored_line_numbers
from casetrack.search.pincite.snippet import has_margin_numbers, readable
from casetrack.search.query.roles import Analyzer, QueryTerms, term_roles
from casetrack.store.case_store import CaseStore
from casetrack.store.chunk_view import provenance, stored_line_pages
from casetrack.store.journal import JournalEntry


@dataclass(frozen=True)
class PinHints:
    """What the search already knows about where in a chunk the answer is (see `span.pin_span`):
    the span the query reproduces (`exact`), the passage window E1 matched best (`focus`), and
    each window's span with its E1 cosine (`windows`)."""

    focus: Span | None = None
    exact: Span | None = None
    windows: Sequence[tuple[Span, float]] | None = None


def pinned_hit(
    chunk_id: str,
    row: Mapping[str, Any],
    documents: dict[str, JournalEntry],
    score: float,
    asked: QueryTerms,
    analyzer: Analyzer,
    hints: PinHints = PinHints(),
) -> SearchHit:
    """A search result whose `provenance` is the pin-cite and `chunk_provenance` the chunk's
    (`asked`: the query's terms by role)."""
    focus, exact, windows = hints.focus, hints.exact, hints.windows
    text = str(row["text"])
    chunk = provenance(dict(row), documents)
    start, end = span.pin_span(  # the module's settings as they are now (bench/cite_width.py sweeps them)
        text,
        asked,
        analyzer,
        focus=focus,
        exact=exact,
        max_lines=span.MAX_LINES,
        widen_lines=span.WIDEN_LINES,
        windows=windows,
    )
    pin = pin_provenance(
        chunk,
        text,
        start,
        end,
        stored_line_numbers(row),
        stored_line_confidences(row),
        stored_line_pages(row),
    )
    return SearchHit(
        chunk_id=chunk_id,
        text=text,
        score=round(score, 6),
        provenance=pin,
        snippet=readable(text[start:end], has_margin_numbers(text)),
        chunk_provenance=chunk,
    )


def pin_chunk_view(store: CaseStore, view: ChunkView, query: str) -> ChunkView:
    """`get_chunk`'s view pinned to `query`: citation/source/snippet of the pin-cite, and the
    chunk's own as chunk_citation/chunk_source."""
    row = store.lance.fetch_chunks([view["chunk_id"]]).get(view["chunk_id"])
    if row is None:
        return view
    entry = store.journal.get(view["document_id"])
    analyzer = store.bm25.analyzer
    documents = {entry.doc_id: entry} if entry else {}
    hit = pinned_hit(view["chunk_id"], row, documents, 0.0, term_roles(query, analyzer), analyzer)
    chunk = hit.chunk_provenance or hit.provenance
    pinned: ChunkView = {
        **view,
        "citation": hit.citation,
        "citation_short": hit.provenance.citation_short(),
        "source": source_json(hit.provenance),
        "snippet": hit.snippet,
        "chunk_citation": chunk.citation(),
        "chunk_source": source_json(chunk),
    }
    return pinned


def pin_offsets(hit: SearchHit) -> Span:
    """The pin-cite's offsets inside the hit's chunk text."""
    chunk = hit.chunk_provenance or hit.provenance
    return hit.provenance.char_start - chunk.char_start, hit.provenance.char_end - chunk.char_start
