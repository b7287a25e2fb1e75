"""From stored rows to what a user sees: document names resolved, provenance, citations."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from typing import Any

from casetrack.domain import DocumentHit, ExtractionMethod, Provenance, SearchHit
from casetrack.errors import DocumentNotFoundError
from casetrack.store.case_store import CaseStore, chunk_id_for
from casetrack.store.journal import JournalEntry


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


def provenance(row: dict[str, object], documents: dict[str, JournalEntry]) -> Provenance:
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


@dataclass(frozen=True)
class SearchFilters:
    """Restrict a search to documents by name, file type or ingest date (what is known today)."""

    documents: tuple[str, ...] = ()
    file_types: tuple[str, ...] = ()  # "pdf", "docx", "text", "rtf", ...
    ingested_after: float | None = None  # unix time
    ingested_before: float | None = None

    def active(self) -> bool:
        return bool(self.documents or self.file_types or self.ingested_after or self.ingested_before)


def filter_documents(store: CaseStore, filters: SearchFilters) -> set[str] | None:
    """doc ids allowed by `filters` (None: no restriction). Raises if a named document is unknown."""
    if not filters.active():
        return None
    allowed = resolve_documents(store, list(filters.documents)) if filters.documents else None
    kept = set()
    for entry in store.documents():
        meta = entry.meta
        if allowed is not None and entry.doc_id not in allowed:
            continue
        if filters.file_types and meta.get("file_type") not in filters.file_types:
            continue
        when = float(meta.get("ingested_at") or 0.0)
        if filters.ingested_after is not None and when < filters.ingested_after:
            continue
        if filters.ingested_before is not None and when >= filters.ingested_before:
            continue
        kept.add(entry.doc_id)
    return kept


def add_context(
    store: CaseStore, hits: list[SearchHit], rows: dict[str, dict[str, Any]], chars: int
) -> list[SearchHit]:
    """`hits` with context_before/after: up to `chars` characters of each one's neighbours."""
    wanted: dict[tuple[str, int, int], tuple[int, str]] = {}
    for i, hit in enumerate(hits):
        row = rows[hit.chunk_id]
        doc, gen, seq = str(row["doc_id"]), int(row["gen"]), int(row["seq"])
        wanted[(doc, gen, seq - 1)] = (i, "before")
        wanted[(doc, gen, seq + 1)] = (i, "after")
    ids = [chunk_id_for(doc, gen, seq) for doc, gen, seq in wanted if seq >= 0]
    neighbours = store.lance.fetch_chunks(ids, ["chunk_id", "doc_id", "gen", "seq", "text"])
    out = list(hits)
    for row in neighbours.values():
        i, side = wanted[(str(row["doc_id"]), int(row["gen"]), int(row["seq"]))]
        text = str(row["text"])
        if side == "before":
            out[i] = replace(out[i], context_before=text[-chars:])
        else:
            out[i] = replace(out[i], context_after=text[:chars])
    return out


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
