"""What a search may see, worked out before ranking: the committed documents, and the documents
and chunks its filters allow."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from casetrack.search.filters import SearchFilters, filter_bates, filter_documents
from casetrack.store.case_store import CaseStore, doc_of_chunk
from casetrack.store.journal import JournalEntry


@dataclass(frozen=True)
class Scope:
    entries: tuple[JournalEntry, ...]  # the committed documents (read once per search)
    visible: Mapping[str, int]  # doc id -> its committed generation: only these chunks are seen
    documents: frozenset[str] | None  # doc ids the filters allow (None: every document)
    chunks: frozenset[str] | None  # chunk ids a Bates range allows (None: no Bates filter)
    empty_because: str | None = None  # why nothing can match (a warning for the response)

    def allows(self, doc_id: str, chunk_gen: int) -> bool:
        """Is a chunk of generation `chunk_gen` of `doc_id` committed (visible)?"""
        return self.visible.get(doc_id) == chunk_gen


def scope_of(store: CaseStore, filters: SearchFilters) -> Scope:
    """The committed documents and what `filters` leave of them (raises on an unknown document
    name or an unreadable Bates range, with the fix)."""
    entries = tuple(store.documents())
    documents = filter_documents(store, filters, list(entries))
    chunks = filter_bates(store, filters)
    why = None
    if chunks is not None:
        on_pages = {doc_of_chunk(c) for c in chunks}
        documents = on_pages if documents is None else documents & on_pages
        if not chunks:
            why = f"No page in this case carries a Bates number in {filters.bates}."
    if why is None and documents is not None and not documents:
        why = "No document in this case matches the filters."
    return Scope(
        entries,
        store.visible(),
        None if documents is None else frozenset(documents),
        None if chunks is None else frozenset(chunks),
        why,
    )
