"""From stored rows to what a user sees: filters, neighbouring context, the per-document view."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from casetrack.domain import DocumentHit, SearchHit
from casetrack.errors import CaseTrackError, Fix
from casetrack.search.legal_filters import LegalFilters, matches
from casetrack.search.pincite import pin_offsets
from casetrack.search.snippet import readable
from casetrack.store.case_store import CaseStore, chunk_id_for
from casetrack.store.documents import resolve_documents
from casetrack.store.journal import JournalEntry
from casetrack.store.lance_tables import CHUNKS


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

    def active(self) -> bool:
        return bool(
            self.documents
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
    for entry in store.documents() if entries is None else entries:
        if allowed is not None and entry.doc_id not in allowed:
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
    if table is None or "bates" not in table.schema.names:
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


def add_context(
    store: CaseStore, hits: list[SearchHit], rows: dict[str, dict[str, Any]], chars: int
) -> list[SearchHit]:
    """`hits` with context_before/after: up to `chars` characters of the text just before and
    after each one's displayed span (its pin-cite), from its own chunk and then the neighbouring
    chunk, never repeating what the snippet shows (consecutive chunks overlap by a sentence or
    two: the overlap is cut off)."""
    wanted: dict[tuple[str, int, int], tuple[int, str]] = {}
    for i, hit in enumerate(hits):
        row = rows[hit.chunk_id]
        doc, gen, seq = str(row["doc_id"]), int(row["gen"]), int(row["seq"])
        wanted[(doc, gen, seq - 1)] = (i, "before")
        wanted[(doc, gen, seq + 1)] = (i, "after")
    ids = [chunk_id_for(doc, gen, seq) for doc, gen, seq in wanted if seq >= 0]
    columns = ["chunk_id", "doc_id", "gen", "seq", "text", "page_index", "char_start", "char_end"]
    neighbours = store.lance.fetch_chunks(ids, columns)
    before = [_own_text(h, rows[h.chunk_id], "before") for h in hits]
    after = [_own_text(h, rows[h.chunk_id], "after") for h in hits]
    for row in neighbours.values():
        i, side = wanted[(str(row["doc_id"]), int(row["gen"]), int(row["seq"]))]
        mine = rows[hits[i].chunk_id]
        if side == "before":
            before[i] = _beyond(row, mine, "before") + "\n\n" + before[i]
        else:
            after[i] = after[i] + "\n\n" + _beyond(row, mine, "after")
    return [
        replace(h, context_before=_tail(b, chars) or None, context_after=_head(a, chars) or None)
        for h, b, a in zip(hits, before, after, strict=True)
    ]


def _own_text(hit: SearchHit, row: dict[str, Any], side: str) -> str:
    """The hit's chunk text before or after its pin-cite."""
    text = str(row["text"])
    start, end = pin_offsets(hit)
    return text[:start] if side == "before" else text[end:]


def _beyond(neighbour: dict[str, Any], mine: dict[str, Any], side: str) -> str:
    """The neighbour's text outside `mine` (chunks of one page overlap by whole sentences)."""
    text = str(neighbour["text"])
    n_start, m_start, m_end = neighbour.get("char_start"), mine.get("char_start"), mine.get("char_end")
    if not (isinstance(n_start, int) and isinstance(m_start, int) and isinstance(m_end, int)):
        return text
    if neighbour.get("page_index") != mine.get("page_index"):
        return text
    if side == "before":
        return text[: max(0, m_start - n_start)]
    return text[max(0, m_end - n_start) :]


def _tail(text: str, chars: int) -> str:
    """The last `chars` characters of `text` made readable, starting at a whole word."""
    flat = readable(text)
    if len(flat) <= chars:
        return flat
    cut = flat[-chars:]
    return cut.split(" ", 1)[1] if " " in cut and not flat[-chars - 1].isspace() else cut


def _head(text: str, chars: int) -> str:
    """The first `chars` characters of `text` made readable, ending at a whole word."""
    flat = readable(text)
    if len(flat) <= chars:
        return flat
    cut = flat[:chars]
    return cut.rsplit(" ", 1)[0] if " " in cut and not flat[chars].isspace() else cut


def by_document(hits: list[SearchHit], limit: int) -> list[DocumentHit]:
    """Documents ranked by their chunks' scores: the best chunk counts fully, each further one
    half as much as the one before, so one strong passage beats many weak mentions but a
    document that answers in several places rises (the súmulas idea: which document says X)."""
    grouped: dict[str, list[SearchHit]] = {}
    for hit in hits:  # hits arrive best first
        grouped.setdefault(hit.provenance.document_id, []).append(hit)
    docs = [
        DocumentHit(
            document=group[0].provenance.document,
            document_id=doc_id,
            score=round(sum(h.score * 0.5**i for i, h in enumerate(group)), 6),
            matching_chunks=len(group),
            best=group[0],
        )
        for doc_id, group in grouped.items()
    ]
    return sorted(docs, key=lambda d: d.score, reverse=True)[:limit]
