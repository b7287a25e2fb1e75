"""Migration 1: a case written before stored data had a version (CaseTrack up to 2026-12) gets
every column and every value its rows could lack, so code reading a version-1 case needs no
"rows written before this column existed" branch.

  * the `chunks` and `documents` tables get every provenance and metadata column they lack
    (older tables got a column only on their next write): null where nothing was known then,
    which is what reading a missing column gave (no Bates stamp, no section, not a transcript,
    no OCR'd line confidences);
  * `line_numbers` of chunks stored before the column existed are computed as verification
    counted them at read time: lines of a paragraph are consecutive from the chunk's
    `line_start`, and the numbers a .txt skips for its blank lines are spread over the chunk's
    paragraph breaks so its last line lands on `line_end` (exact for paged documents, for DOCX
    and for a .txt with one blank line between paragraphs; otherwise the same estimate
    verification used);
  * a chunk without `extraction_method` (none was ever written so) is "native", as read before;
  * a document row without `meta_json` gets the journal's other metadata, as the document's next
    write would have given it (store/journal_repair.py rebuilds a journal from it);
  * the keyword index's analyzer version: recovery, which runs first, rebuilds an index that
    records none, so every version-1 index records it.

What cannot be computed from what is stored stays as it was: E1 passage windows (`vector_win`)
of chunks embedded before windows existed stay null until `casetrack reembed` adds them.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from casetrack.store.lance_schema import DOCUMENT_SCHEMA, META_JSON, chunk_schema
from casetrack.store.lance_tables import CHUNKS, DOCUMENTS
from casetrack.store.migrations.base import MigratingStore, Migration

_CHUNK_COLUMNS = (
    "page",
    "page_index",
    "paragraph_start",
    "paragraph_end",
    "line_start",
    "line_end",
    "char_start",
    "char_end",
    "token_count",
    "extraction_method",
    "ocr_confidence",
    "line_numbers",
    "line_confidences",
    "bates",
    "section",
    "line_pages",
    "transcript",
)
_DOCUMENT_COLUMNS = (
    "source_path",
    "sha256",
    "file_type",
    "size_bytes",
    "page_count",
    "chunk_count",
    "needs_ocr_pages",
    "ingested_at",
    "embed_model",
    "embed_models",
    "warnings",
    META_JSON,
)
_BATCH = 256  # chunk rows rewritten per LanceDB commit (with their embeddings: a few MB)


def _fields(schema: pa.Schema, names: tuple[str, ...]) -> tuple[pa.Field, ...]:
    return tuple(schema.field(name) for name in names)


# -- line numbers ---------------------------------------------------------------------------------


def _segments(text: str) -> list[bool]:
    """For each non-empty line of a chunk's text: whether a paragraph break comes before it."""
    out: list[bool] = []
    blank_before = False
    for piece in text.split("\n"):
        if piece:
            out.append(blank_before)
            blank_before = False
        elif out:
            blank_before = True
    return out


def line_numbers_from_range(text: str, line_start: int | None, line_end: int | None) -> list[int]:
    """The number of each non-empty line of a chunk's `text`, from its first and last line's
    numbers (search/cite_text.py's count for rows that did not store them; [] without lines)."""
    segments = _segments(text)
    first = line_start if isinstance(line_start, int) else 0
    last = line_end if isinstance(line_end, int) else 0
    if first <= 0 or not segments:
        return []
    breaks = sum(1 for after in segments if after)
    extra = max(0, (last - first) - (len(segments) - 1))
    numbers, current, seen = [first], first, 0
    for after in segments[1:]:
        step = 1
        if after and breaks:
            step += extra // breaks + (1 if seen < extra % breaks else 0)
            seen += 1
        current += step
        numbers.append(current)
    return numbers


def _fill_line_numbers(store: MigratingStore) -> list[str]:
    table = store.lance.table(CHUNKS)
    if table is None:
        return []
    done = 0
    while True:  # each batch leaves the filter: the loop ends
        rows = table.search().where("line_numbers IS NULL").limit(_BATCH).to_arrow()
        if rows.num_rows == 0:
            break
        numbers = [
            line_numbers_from_range(str(r["text"]), r["line_start"], r["line_end"])
            for r in rows.select(["text", "line_start", "line_end"]).to_pylist()
        ]
        rows = rows.select(table.schema.names).cast(table.schema)
        index = rows.schema.get_field_index("line_numbers")
        rows = rows.set_column(
            index, rows.schema.field(index), pa.array(numbers, rows.schema.field(index).type)
        )
        table.merge_insert("chunk_id").when_matched_update_all().execute(rows)
        done += rows.num_rows
    return [f"line numbers stored for {done} chunks written before they were"] if done else []


# -- extraction method, document metadata ---------------------------------------------------------


def _fill_extraction_method(store: MigratingStore) -> list[str]:
    table = store.lance.table(CHUNKS)
    if table is None:
        return []
    missing = int(table.count_rows("extraction_method IS NULL"))
    if not missing:
        return []
    table.update(where="extraction_method IS NULL", values={"extraction_method": "native"})
    return [f"extraction method 'native' stored for {missing} chunks"]


def _fill_meta_json(store: MigratingStore) -> list[str]:
    table = store.lance.table(DOCUMENTS)
    if table is None:
        return []
    n = int(table.count_rows(f"{META_JSON} IS NULL"))
    if not n:
        return []
    rows = table.search().where(f"{META_JSON} IS NULL").select(["doc_id", "gen"]).limit(n).to_arrow()
    without = {(r["doc_id"], r["gen"]) for r in rows.to_pylist()}
    again: list[dict[str, Any]] = []
    for entry in store.documents():
        extra = {k for k in entry.meta if k not in DOCUMENT_SCHEMA.names}
        if (entry.doc_id, entry.gen) in without and extra:
            again.append({**entry.meta, "doc_id": entry.doc_id, "gen": entry.gen})
    if not again:
        return []  # documents with no other metadata: null is what their write gives them
    store.lance.upsert_documents(again)
    return [f"document metadata stored in LanceDB for {len(again)} documents"]


def _fill(store: MigratingStore) -> list[str]:
    return [*_fill_line_numbers(store), *_fill_extraction_method(store), *_fill_meta_json(store)]


MIGRATION = Migration(
    1,
    "every column and value older rows lacked (line numbers, document metadata)",
    columns={
        CHUNKS: _fields(chunk_schema(1), _CHUNK_COLUMNS),
        DOCUMENTS: _fields(DOCUMENT_SCHEMA, _DOCUMENT_COLUMNS),
    },
    fill=_fill,
)
