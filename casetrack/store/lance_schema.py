"""The LanceDB tables' columns: chunk and document schemas, the embedding columns by slot, and
what the keyword index holds of a chunk row.

Every table of a case at the current stored-data version (store/migrations) has every column of
these schemas but the embedding columns, which come with the first model that fills them. A new
column is added by a migration, which fills the rows already stored (or says why it cannot)."""

from __future__ import annotations

import pyarrow as pa

from casetrack.domain.slots import SLOT_ORDER, SLOTS, presence_column

# Embedding columns (names from the slot table, domain/slots.py). Columns beyond E1's `vector`
# are added to the table the first time a model fills them (rows stored before read as null:
# those chunks lack that embedding until `casetrack reembed`).
VECTOR = SLOTS["E1"].columns[0]
E7_VECTOR = SLOTS["E7"].columns[0]
SPARSE_IDS, SPARSE_VALUES = SLOTS["E6"].columns
LATE_VECTORS, LATE_COUNT = SLOTS["E12"].columns
# E1 vectors of a chunk's passage windows (chunk/windows.py): float16 bytes, b"" when the chunk
# is its own only window, null when the chunk was embedded before windows existed.
WINDOW_VECTORS = "vector_win"
EMBEDDING_COLUMNS = (VECTOR, E7_VECTOR, SPARSE_IDS, SPARSE_VALUES, LATE_VECTORS, LATE_COUNT, WINDOW_VECTORS)
# The column that shows whether a chunk has a slot's embedding (null: it does not).
SLOT_COLUMN = {slot: presence_column(slot) for slot in SLOT_ORDER}


def chunk_schema(dim: int) -> pa.Schema:
    """Text, provenance and the E1 vector; other embedding columns are appended by ingest."""
    return pa.schema(
        [
            pa.field("chunk_id", pa.string(), nullable=False),
            pa.field("doc_id", pa.string(), nullable=False),
            pa.field("gen", pa.int32(), nullable=False),
            pa.field("seq", pa.int32(), nullable=False),
            pa.field("text", pa.string(), nullable=False),
            pa.field("page", pa.int32()),
            pa.field("page_index", pa.int32()),
            pa.field("paragraph_start", pa.int32()),
            pa.field("paragraph_end", pa.int32()),
            pa.field("line_start", pa.int32()),
            pa.field("line_end", pa.int32()),
            pa.field("char_start", pa.int32()),
            pa.field("char_end", pa.int32()),
            pa.field("token_count", pa.int32()),
            pa.field("extraction_method", pa.string()),
            pa.field("ocr_confidence", pa.float32()),
            # The number of each line of `text` (a .txt's own numbers skip blank lines); [] when
            # the chunk has no numbered lines. Migration 1 computed it for rows stored without.
            pa.field("line_numbers", pa.list_(pa.int32())),
            # OCR'd chunks: each of those lines' mean word confidence (0-100); null otherwise.
            pa.field("line_confidences", pa.list_(pa.float32())),
            pa.field("bates", pa.string()),  # the page's production stamp, when it carries one
            # Statutes and structured texts: where the chunk sits ("Lei 8.078/1990 › Art. 49",
            # "Section 4.2(a)"; chunk/structure.py). Indexed with the text (`keyword_texts`).
            pa.field("section", pa.string()),
            # Transcripts (parse/transcript/): the printed transcript page of each line of `text`
            # (`line_numbers` are then the printed margin numbers) and how the document is cited
            # ("Smith Dep.", "Tr."); null otherwise (and in rows stored before 2026-11-28, when
            # transcripts were not read apart).
            pa.field("line_pages", pa.list_(pa.int32())),
            pa.field("transcript", pa.string()),
            pa.field(VECTOR, pa.list_(pa.float32(), dim)),
        ]
    )


META_JSON = "meta_json"
DOCUMENT_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("gen", pa.int32(), nullable=False),
        pa.field("name", pa.string(), nullable=False),
        pa.field("source_path", pa.string()),
        pa.field("sha256", pa.string()),
        pa.field("file_type", pa.string()),
        pa.field("size_bytes", pa.int64()),
        pa.field("page_count", pa.int32()),
        pa.field("chunk_count", pa.int32()),
        pa.field("needs_ocr_pages", pa.list_(pa.int32())),
        pa.field("ingested_at", pa.float64()),
        pa.field("embed_model", pa.string()),
        pa.field("embed_models", pa.list_(pa.string())),
        pa.field("warnings", pa.list_(pa.string())),
        # The rest of the journal's metadata (legal metadata, OCR facts, Bates ends ...) as JSON, so
        # a journal rebuilt from LanceDB keeps it (store/journal_repair.py); null when there is
        # none. Migration 1 filled it from the journal for rows stored before 2026-11-25.
        pa.field(META_JSON, pa.string()),
    ]
)

# Columns a search result needs (no embeddings).
RESULT_COLUMNS = [f.name for f in chunk_schema(1) if f.name not in EMBEDDING_COLUMNS]


def keyword_texts(rows: pa.Table) -> list[str]:
    """What the keyword index holds for each row: its text, after its structural path when it
    has one (so "art. 49 do CDC" finds the chunk of that article)."""
    texts: list[str] = rows.column("text").to_pylist()
    if "section" not in rows.column_names:
        return texts
    return [f"{s}\n{t}" if s else t for s, t in zip(rows.column("section").to_pylist(), texts, strict=True)]
