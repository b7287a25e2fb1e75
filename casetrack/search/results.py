"""From stored rows to what a user sees: document names resolved, provenance, citations."""

from __future__ import annotations

import difflib

from casetrack.domain import ExtractionMethod, Provenance
from casetrack.errors import DocumentNotFoundError
from casetrack.store.case_store import CaseStore
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
