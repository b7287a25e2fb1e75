"""Which documents and chunks a search may see: by name, file type, ingest date, Bates range and
legal metadata (`legal_filters.py`), resolved before ranking so every result matches."""

from __future__ import annotations

from dataclasses import dataclass, field

from casetrack.errors import CaseTrackError, Fix
from casetrack.search.legal_filters import LegalFilters, matches
from casetrack.store.case_store import CaseStore
from casetrack.store.documents import resolve_documents
from casetrack.store.journal import JournalEntry
from casetrack.store.lance_tables import CHUNKS
from casetrack.store.near_duplicates import LINK_KEY


@dataclass(frozen=True)
class SearchFilters:
    """Restrict a search to documents by name, file type, ingest date, Bates range and legal
    metadata (search/legal_filters.py)."""

    documents: tuple[str, ...] = ()
    file_types: tuple[str, ...] = ()  # "pdf", "docx", "text", "rtf", ...
    ingested_after: float | None = None  # unix time
    ingested_before: float | None = None
    bates: str | None = None  # a Bates number or range as typed: "ABC0001200-ABC0001300"
    legal: LegalFilters = field(default_factory=LegalFilters)  # document type, tribunal, dates ... (issue 15)
    # near-duplicates (store/near_duplicates.py): "show" as any document, "group" (one result per
    # original and its copies, the copies named on it: app/searching.py), "hide" (copies left out)
    near_duplicates: str = "show"

    def active(self) -> bool:
        return bool(
            self.near_duplicates == "hide"
            or self.documents
            or self.file_types
            or self.ingested_after
            or self.ingested_before
            or self.bates
            or self.legal.active()
        )


def filter_documents(
    store: CaseStore, filters: SearchFilters, entries: list[JournalEntry] | None = None
) -> set[str] | None:
    """doc ids allowed by `filters` (None: no restriction). Raises if a named document is unknown.
    `entries`: the committed documents, when the caller has read them already."""
    if not filters.active():
        return None
    allowed = resolve_documents(store, list(filters.documents)) if filters.documents else None
    kept = set()
    entries = store.documents() if entries is None else entries
    copies = near_copies(entries) if filters.near_duplicates == "hide" else set()
    for entry in entries:
        if (allowed is not None and entry.doc_id not in allowed) or entry.doc_id in copies:
            continue
        meta = entry.meta  # parsed on first read (store/journal.py): only for the documents kept so far
        if filters.file_types and meta.get("file_type") not in filters.file_types:
            continue
        when = float(meta.get("ingested_at") or 0.0)
        if filters.ingested_after is not None and when < filters.ingested_after:
            continue
        if filters.ingested_before is not None and when >= filters.ingested_before:
            continue
        if filters.legal.active() and not matches(meta, filters.legal):
            continue
        kept.add(entry.doc_id)
    return kept


def near_copies(entries: list[JournalEntry]) -> set[str]:
    """The documents that nearly copy another document of the case (while that one is in it)."""
    ids = {e.doc_id for e in entries}
    out = set()
    for entry in entries:
        link = entry.meta.get(LINK_KEY)
        if isinstance(link, dict) and link.get("document_id") in ids:
            out.add(entry.doc_id)
    return out


def near_duplicate_families(entries: list[JournalEntry]) -> dict[str, str]:
    """doc id -> the original its near-duplicate chain leads back to (itself when it copies none)."""
    ids = {e.doc_id: e for e in entries}

    def root(doc_id: str) -> str:
        seen = {doc_id}
        while True:
            link = ids[doc_id].meta.get(LINK_KEY)
            target = link.get("document_id") if isinstance(link, dict) else None
            if target not in ids or target in seen:
                return doc_id
            doc_id = str(target)
            seen.add(doc_id)

    return {doc_id: root(doc_id) for doc_id in ids}


def filter_bates(store: CaseStore, filters: SearchFilters) -> set[str] | None:
    """The committed chunks on pages whose Bates stamp falls in `filters.bates` (None: no Bates
    filter). Raises a CaseTrackError saying how to write a range it cannot read."""
    from casetrack.parse.bates import in_range, parse_bates_range

    if not filters.bates:
        return None
    try:
        wanted = parse_bates_range(filters.bates)
    except ValueError as e:
        raise CaseTrackError(
            str(e),
            fix=Fix(
                "Example",
                'casetrack search --case CASE "query" --bates ABC0001200-ABC0001300',
                "search_case",
                {"bates": "ABC0001200-ABC0001300"},
            ),
        ) from e
    table = store.lance.table(CHUNKS)
    if table is None:
        return set()
    n = int(table.count_rows("bates IS NOT NULL"))
    if n == 0:
        return set()
    rows = (
        table.search()
        .where("bates IS NOT NULL")
        .select(["chunk_id", "doc_id", "gen", "bates"])
        .limit(n)
        .to_arrow()
    )
    visible = store.visible()
    return {
        str(r["chunk_id"])
        for r in rows.to_pylist()
        if visible.get(str(r["doc_id"])) == int(r["gen"]) and in_range(str(r["bates"]), wanted)
    }
