"""One stored chunk by id, with its citation and the chunks around it in its document.

Only committed chunks are shown: the chunk's document must be committed at the chunk's
generation (what search shows), so an id from an older version of a re-ingested document, or
from a document being written, is unknown here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from casetrack.domain import ExtractionMethod, Provenance
from casetrack.domain.views import ChunkBrief, ChunkView, source_json
from casetrack.errors import CaseTrackError
from casetrack.store.case_store import CaseStore, chunk_id_for
from casetrack.store.journal import JournalEntry
from casetrack.store.lance_tables import RESULT_COLUMNS

MAX_NEIGHBOURS = 10
CHUNK_HINT = "chunk ids come from search_case results"


def get_chunk(store: CaseStore, chunk_id: str, neighbours: int = 1) -> ChunkView:
    """A committed chunk with its citation, provenance and up to `neighbours` chunks each side.

    Returns: chunk_id, document, document_id, seq (0-based position in the document),
    document_chunks, text, citation, citation_short, source (as in search results),
    before and after (lists of {chunk_id, text, citation} in reading order; shorter or empty at
    the document's edges).
    """
    if not 0 <= neighbours <= MAX_NEIGHBOURS:
        raise CaseTrackError(
            f"neighbours must be between 0 and {MAX_NEIGHBOURS}, got {neighbours}.", "Use neighbours=1."
        )
    key = chunk_id.strip()
    row = store.lance.fetch_chunks([key]).get(key) if key else None
    visible = store.visible()
    if row is None or visible.get(str(row["doc_id"])) != int(row["gen"]):
        raise CaseTrackError(f"No chunk '{chunk_id}' in case '{store.record.name}'.", CHUNK_HINT)
    doc_id, gen, seq = str(row["doc_id"]), int(row["gen"]), int(row["seq"])
    entry = store.journal.get(doc_id)
    documents = {doc_id: entry} if entry is not None else {}
    count = entry.expected_chunks if entry is not None else seq + 1 + neighbours
    wanted = [s for s in range(seq - neighbours, seq + neighbours + 1) if s != seq and 0 <= s < count]
    near = store.lance.fetch_chunks([chunk_id_for(doc_id, gen, s) for s in wanted], RESULT_COLUMNS)

    def brief(r: dict[str, Any]) -> ChunkBrief:
        return {"chunk_id": r["chunk_id"], "text": r["text"], "citation": provenance(r, documents).citation()}

    rows = sorted(near.values(), key=lambda r: int(r["seq"]))
    prov = provenance(row, documents)
    return {
        "chunk_id": key,
        "document": prov.document,
        "document_id": doc_id,
        "seq": seq,
        "document_chunks": count,
        "text": row["text"],
        "citation": prov.citation(),
        "citation_short": prov.citation_short(),
        "source": source_json(prov),
        "before": [brief(r) for r in rows if int(r["seq"]) < seq],
        "after": [brief(r) for r in rows if int(r["seq"]) > seq],
    }


def provenance(row: dict[str, object], documents: dict[str, JournalEntry]) -> Provenance:
    """A stored chunk row's provenance, its document named from the journal entries given."""

    def num(key: str) -> int:
        value = row.get(key)
        return int(value) if isinstance(value, int) else 0

    page = row.get("page")
    confidence = row.get("ocr_confidence")
    entry = documents.get(str(row["doc_id"]))
    pages = stored_line_pages(row) or []
    transcript = str(row["transcript"]) if row.get("transcript") and pages else None
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
        extraction_method=ExtractionMethod(str(row["extraction_method"])),
        ocr_confidence=float(confidence) if isinstance(confidence, float) else None,
        lines_citable=not (entry and entry.meta.get("file_type") == "docx"),
        bates=str(row["bates"]) if row.get("bates") else None,
        section=str(row["section"]) if row.get("section") else None,
        transcript=transcript,
        transcript_page=pages[0] if transcript else None,
        transcript_page_end=pages[-1] if transcript and pages[-1] != pages[0] else None,
    )


def stored_line_pages(row: Mapping[str, object]) -> list[int] | None:
    """A transcript chunk row's `line_pages`: the printed transcript page of each of its lines
    (None for other chunks)."""
    value = row.get("line_pages")
    return [int(n) for n in value] if isinstance(value, (list, tuple)) and value else None
