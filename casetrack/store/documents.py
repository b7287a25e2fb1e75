"""The documents of one case: find one by name or id, describe it, list them all.

Only committed documents exist here (what search shows). The records are `DocumentSummary` and
`DocumentDetails` (domain/views.py), whose keys are the `--json` and MCP interface. An e-mail and
its attachments link to each other (`attachments`, `attachment_of`: ingest/attachments.py); the
links are read from the attachments' records, so they never name a deleted document.
"""

from __future__ import annotations

import difflib
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from casetrack.domain.cases import DOCUMENT_SORTS, NEAR_DUPLICATE_MODES, DocumentSort, NearDuplicates
from casetrack.domain.views import (
    CaseDocument,
    DocumentDetails,
    DocumentLink,
    DocumentSummary,
    NearDuplicateJson,
    ProcessNumberJson,
)
from casetrack.errors import CaseTrackError, DocumentNotFoundError, list_documents_fix
from casetrack.legal.cnj import parse_cnj, tribunals_of_numbers
from casetrack.store.case_store import CaseStore
from casetrack.store.journal import JournalEntry
from casetrack.store.lance_tables import CHUNKS, sql_str
from casetrack.store.near_duplicates import LINK_KEY
from casetrack.store.threads import thread_of

SortBy = DocumentSort
SORT_KEYS: tuple[str, ...] = DOCUMENT_SORTS


def resolve_document(store: CaseStore, name_or_id: str) -> JournalEntry:
    """The committed document called `name_or_id`: the one resolver for every surface (tools,
    CLI, search filters).

    Tried in order: exact id, exact name, name ignoring case, unique name prefix, unique name
    substring (both ignoring case). Otherwise DocumentNotFoundError with close names.
    """
    raw = name_or_id.strip()
    docs = store.documents()
    fix = list_documents_fix(store.record.name)
    if not raw:
        raise DocumentNotFoundError("No document name was given.", fix=fix)
    for entry in docs:
        if entry.doc_id == raw:
            return entry
    for entry in docs:
        if entry.name == raw:
            return entry
    key = raw.casefold()
    same = [e for e in docs if e.name.casefold() == key]
    if len(same) == 1:
        return same[0]
    prefix = [e for e in docs if e.name.casefold().startswith(key)]
    if len(prefix) == 1:
        return prefix[0]
    inside = [e for e in docs if key in e.name.casefold()]
    if len(inside) == 1:
        return inside[0]
    case = store.record.name
    several = same or prefix or inside
    if several:
        names = ", ".join(repr(e.name) for e in several[:5])
        more = f" and {len(several) - 5} more" if len(several) > 5 else ""
        raise DocumentNotFoundError(
            f"'{raw}' matches {len(several)} documents in case '{case}': {names}{more}. Use the full name or the id.",
            fix=fix,
        )
    folded = {e.name.casefold(): e.name for e in docs}
    close = [folded[c] for c in difflib.get_close_matches(key, list(folded), n=3, cutoff=0.4)]
    suggestion = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    raise DocumentNotFoundError(f"No document named '{raw}' in case '{case}'.{suggestion}", fix=fix)


def resolve_exactly(store: CaseStore, name_or_id: str) -> JournalEntry:
    """The committed document whose id or whole name is `name_or_id`, for what cannot be undone
    (delete): never a prefix, a fragment or another spelling. A near match is only named in the
    error, with the exact reference to repeat the command with."""
    raw = name_or_id.strip()
    docs = store.documents()
    for entry in docs:
        if raw and (entry.doc_id == raw.lower() or entry.name == raw):
            return entry
    try:
        near = resolve_document(store, raw)
    except DocumentNotFoundError as e:
        raise DocumentNotFoundError(f"{e.message} Nothing was deleted.", fix=e.fix) from e
    raise DocumentNotFoundError(
        f"No document is named exactly '{raw}' in case '{store.record.name}'; nothing was deleted. "
        f"Did you mean '{near.name}' (id {near.doc_id})? A deletion needs the whole name or the id.",
        fix=list_documents_fix(store.record.name),
    )


def resolve_documents(store: CaseStore, names: list[str]) -> set[str]:
    """The doc ids of several documents (names, ids or unique name fragments), as `resolve_document`."""
    return {resolve_document(store, name).doc_id for name in names}


def _iso(timestamp: Any) -> str | None:
    if not isinstance(timestamp, int | float) or timestamp <= 0:
        return None
    return datetime.fromtimestamp(float(timestamp), UTC).isoformat(timespec="seconds")


def case_document(entry: JournalEntry) -> CaseDocument:
    """A committed document as the case's summary lists it."""
    meta = entry.meta
    return {
        "document_id": entry.doc_id,
        "name": entry.name,
        "file_type": meta.get("file_type"),
        "pages": meta.get("page_count"),
        "chunks": entry.expected_chunks,
        "needs_ocr_pages": meta.get("needs_ocr_pages") or [],
        "source_path": entry.source_path,
        "sha256": entry.sha256,
        "ocr_pages": [int(n) for n in meta.get("ocr_pages") or []],
    }


def _parent_id(entry: JournalEntry) -> str | None:
    link = entry.meta.get("attachment_of")
    return str(link["document_id"]) if isinstance(link, dict) and link.get("document_id") else None


def attachment_links(entries: list[JournalEntry]) -> dict[str, list[DocumentLink]]:
    """e-mail doc id -> its attachments (in the order they were stored)."""
    out: dict[str, list[DocumentLink]] = {}
    for e in sorted(entries, key=lambda e: float(e.meta.get("ingested_at") or 0.0)):
        parent = _parent_id(e)
        if parent:
            out.setdefault(parent, []).append({"document_id": e.doc_id, "name": e.name})
    return out


def document_status(entry: JournalEntry) -> str:
    """A listed (committed) document's status: "needs_ocr" while some of its pages could not be
    read (no text layer and no OCR), else "ingested"."""
    return "needs_ocr" if entry.meta.get("needs_ocr_pages") else "ingested"


def near_duplicate_of(entry: JournalEntry, names: dict[str, str] | None) -> NearDuplicateJson | None:
    """The document `entry` nearly copies, while it is in the case (`names`: doc id -> name)."""
    link = entry.meta.get(LINK_KEY)
    if not isinstance(link, dict) or names is None or link.get("document_id") not in names:
        return None
    return {
        "document_id": str(link["document_id"]),
        "name": names[str(link["document_id"])],
        "similarity": float(link.get("similarity") or 0.0),
        "words_changed": int(link.get("words_changed") or 0),
        "lines_changed": int(link.get("lines_changed") or 0),
    }


def near_duplicate_links(entries: list[JournalEntry]) -> dict[str, list[DocumentLink]]:
    """doc id -> the documents that nearly copy it."""
    names = {e.doc_id: e.name for e in entries}
    out: dict[str, list[DocumentLink]] = {}
    for e in entries:
        if (near := near_duplicate_of(e, names)) is not None:
            out.setdefault(near["document_id"], []).append({"document_id": e.doc_id, "name": e.name})
    return out


def document_summary(
    entry: JournalEntry,
    links: dict[str, list[DocumentLink]] | None = None,
    names: dict[str, str] | None = None,
    copies: dict[str, list[DocumentLink]] | None = None,
) -> DocumentSummary:
    """What the journal knows about a document (no LanceDB read). `links` (attachment_links),
    `names` (doc id -> name) and `copies` (near_duplicate_links) of the case's documents fill the
    e-mail and near-duplicate links."""
    size = entry.meta.get("size_bytes")
    legal = entry.meta.get("legal") or {}
    parent = _parent_id(entry)
    return {
        **case_document(entry),
        "id": entry.doc_id,
        "status": document_status(entry),
        "ingested_at": _iso(entry.meta.get("ingested_at")),
        "size_bytes": int(size) if isinstance(size, int) else None,
        "doc_type": legal.get("doc_type"),
        "doc_date": legal.get("doc_date"),
        "process_numbers": [str(p) for p in legal.get("process_numbers") or []],
        "tribunals": list(
            dict.fromkeys(
                [str(t) for t in legal.get("tribunals") or []]
                + tribunals_of_numbers(legal.get("process_numbers") or [])
            )
        ),
        "tags": [str(t) for t in legal.get("tags") or []],
        "attachment_of": {"document_id": parent, "name": names[parent]}
        if parent and names and parent in names
        else None,
        "attachments": list((links or {}).get(entry.doc_id, [])),
        "near_duplicate_of": near_duplicate_of(entry, names),
        "near_duplicates": list((copies or {}).get(entry.doc_id, [])),
    }


def _extraction_methods(store: CaseStore, entry: JournalEntry) -> dict[str, int]:
    """extraction method -> number of chunks, over the document's committed generation."""
    table = store.lance.table(CHUNKS)
    if table is None:
        return {}
    where = f"doc_id = {sql_str(entry.doc_id)} AND gen = {int(entry.gen)}"
    n = int(table.count_rows(where))
    if n == 0:
        return {}
    column = table.search().where(where).select(["extraction_method"]).limit(n).to_arrow().column(0)
    return dict(Counter(str(m) for m in column.to_pylist()))


def document_details(store: CaseStore, entry: JournalEntry) -> DocumentDetails:
    """Everything known about one document.

    Keys: document_id, name, file_type, pages, chunks, needs_ocr_pages, source_path, sha256,
    ingested_at (ISO 8601 UTC or None), size_bytes (at ingest; else the source file's current
    size; else None), extraction_method ("native", "ocr", ... or "mixed"; None without chunks),
    extraction_methods (method -> chunk count), source_exists, generation, warnings.
    """
    docs = store.documents()
    summary = document_summary(
        entry, attachment_links(docs), {e.doc_id: e.name for e in docs}, near_duplicate_links(docs)
    )
    source = Path(entry.source_path) if entry.source_path else None
    exists = bool(source and source.is_file())
    if summary["size_bytes"] is None and source is not None and exists:
        summary["size_bytes"] = source.stat().st_size
    methods = _extraction_methods(store, entry)
    legal = entry.meta.get("legal") or {}
    return {
        **summary,
        "extraction_method": next(iter(methods)) if len(methods) == 1 else ("mixed" if methods else None),
        "extraction_methods": methods,
        "source_exists": exists,
        "generation": entry.gen,
        "warnings": list(entry.meta.get("warnings") or []),
        "page_ocr_confidence": {
            str(k): float(v) for k, v in (entry.meta.get("page_ocr_confidence") or {}).items()
        },
        "low_confidence_pages": [int(n) for n in entry.meta.get("low_confidence_pages") or []],
        "bates": [str(b) for b in entry.meta.get("bates") or []],
        "parties": [str(p.get("name") if isinstance(p, dict) else p) for p in legal.get("parties") or []],
        "languages": [str(lang) for lang in legal.get("languages") or []],
        "fields": dict(legal.get("fields") or {}),
        "authorities": [str(a) for a in legal.get("authorities") or []],
        "process_checks": process_checks(legal.get("process_numbers") or []),
        "thread": thread_of(entry, docs),
    }


def process_checks(numbers: list[Any]) -> list[ProcessNumberJson]:
    """Each CNJ number decoded: its tribunal, and whether its check digits hold."""
    out: list[ProcessNumberJson] = []
    for number in numbers:
        cnj = parse_cnj(str(number))
        if cnj is None:
            continue
        out.append(
            {
                "number": cnj.key,
                "valid": cnj.valid,
                "expected_check_digits": cnj.expected_check_digits,
                "tribunal": cnj.tribunal,
                "segment": cnj.segment_name,
                "problem": cnj.problem(),
            }
        )
    return out


def list_documents(
    store: CaseStore, sort_by: SortBy = "name", near_duplicates: NearDuplicates = "show"
) -> list[DocumentSummary]:
    """Every committed document (keys as in `case_summary` plus ingested_at and size_bytes).

    sort_by: "name" (A-Z, ignoring case), "date" (newest ingest first), "pages" (most pages
    first), "type" (file type A-Z, then name). near_duplicates: "show" (each where its sort puts
    it), "group" (each right after the document it nearly copies), "hide" (left out).
    """
    if sort_by not in SORT_KEYS:
        raise CaseTrackError(f"Cannot sort documents by '{sort_by}'.", f"Use one of: {', '.join(SORT_KEYS)}.")
    if near_duplicates not in NEAR_DUPLICATE_MODES:
        raise CaseTrackError(
            f"Unknown near-duplicates mode '{near_duplicates}'.",
            f"Use one of: {', '.join(NEAR_DUPLICATE_MODES)}.",
        )
    entries = store.documents()

    def name(e: JournalEntry) -> tuple[str, str]:
        return (e.name.casefold(), e.doc_id)

    if sort_by == "date":
        entries.sort(key=name)
        entries.sort(key=lambda e: float(e.meta.get("ingested_at") or 0.0), reverse=True)
    elif sort_by == "pages":
        entries.sort(key=name)
        entries.sort(key=lambda e: int(e.meta.get("page_count") or 0), reverse=True)
    elif sort_by == "type":
        entries.sort(key=lambda e: (str(e.meta.get("file_type") or ""), *name(e)))
    else:
        entries.sort(key=name)
    links, names, copies = (
        attachment_links(entries),
        {e.doc_id: e.name for e in entries},
        near_duplicate_links(entries),
    )
    listed = [document_summary(e, links, names, copies) for e in entries]
    if near_duplicates == "hide":
        return [d for d in listed if d["near_duplicate_of"] is None]
    return group_near_duplicates(listed) if near_duplicates == "group" else listed


def group_near_duplicates(listed: list[DocumentSummary]) -> list[DocumentSummary]:
    """The documents in their order, each near-duplicate moved right after the one it copies
    (a copy of a copy after that copy)."""
    by_id = {d["document_id"]: d for d in listed}
    out: list[DocumentSummary] = []
    seen: set[str] = set()

    def place(doc: DocumentSummary) -> None:
        if doc["document_id"] in seen:
            return
        seen.add(doc["document_id"])
        out.append(doc)
        for copy in doc["near_duplicates"]:
            if copy["document_id"] in by_id:
                place(by_id[copy["document_id"]])

    for doc in listed:
        if doc["near_duplicate_of"] is None:
            place(doc)
    for doc in listed:  # copies in a loop of copies (cannot happen at ingest): where they are
        place(doc)
    return out
