"""LanceDB tables of one case: `documents` and `chunks` (text, provenance, vectors).

LanceDB commits are atomic (a manifest per version) but never fsynced; `fsync_tree` makes a
commit durable before the journal says it happened.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import BTree, HnswSq

from casetrack.atomic_files import fsync_dir, rename_durably
from casetrack.store import lance_schema as _schema
from casetrack.store.lance_manifest_copy import keep_copy, put_back
from casetrack.store.lance_salvage import is_lance_failure
from casetrack.store.lance_versions import open_checked, open_older

CHUNKS = "chunks"
DOCUMENTS = "documents"

# Below this many chunks a flat scan is fast enough (bench/latency.py: ~7 ms at 10k warm) and an
# index would only cost build time; above it an IVF_HNSW_SQ index answers in ~5 ms at 100k where
# the flat scan takes ~70 ms. Indexes are brought up to date when this share of rows is new.
VECTOR_INDEX_MIN_ROWS = 20_000
REINDEX_UNINDEXED_SHARE = 0.1
# Every commit adds a fragment; scans pay per fragment (a case of 800 one-file commits fetched
# 100 candidates in 530 ms, 15 ms after compaction), so small fragments are merged past this many.
MAX_SMALL_FRAGMENTS = 16

# The columns, re-exported: callers read them from here (store/lance_schema.py defines them).
DOCUMENT_SCHEMA = _schema.DOCUMENT_SCHEMA
E7_VECTOR = _schema.E7_VECTOR
EMBEDDING_COLUMNS = _schema.EMBEDDING_COLUMNS
LATE_COUNT = _schema.LATE_COUNT
LATE_VECTORS = _schema.LATE_VECTORS
META_JSON = _schema.META_JSON
RESULT_COLUMNS = _schema.RESULT_COLUMNS
SLOT_COLUMN = _schema.SLOT_COLUMN
SPARSE_IDS = _schema.SPARSE_IDS
SPARSE_VALUES = _schema.SPARSE_VALUES
VECTOR = _schema.VECTOR
WINDOW_VECTORS = _schema.WINDOW_VECTORS
chunk_schema = _schema.chunk_schema
keyword_texts = _schema.keyword_texts


def sql_str(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def sql_in(column: str, values: list[str]) -> str:
    return f"{column} IN ({', '.join(sql_str(v) for v in values)})"


def fsync_tree(root: Path, since: float) -> None:
    """fsync files under `root` modified at or after `since`, then every directory."""
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            path = os.path.join(dirpath, name)
            try:
                if os.stat(path).st_mtime >= since - 1.0:
                    fd = os.open(path, os.O_RDONLY)
                    try:
                        os.fsync(fd)
                    finally:
                        os.close(fd)
            except FileNotFoundError:
                continue
        fsync_dir(dirpath)


log = logging.getLogger(__name__)


class RowIdMap:
    def __init__(self, version: int, ids: dict[str, int]) -> None:
        self.version = version
        self.ids = ids


class LanceTables:
    """Opens the case's LanceDB dataset; tables are created on first write."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.db = lancedb.connect(str(path))
        self._tables: dict[str, Any] = {}
        self._row_ids: RowIdMap | None = None
        self._row_ids_lock = threading.Lock()
        self.fallbacks: list[str] = []  # tables opened at an older version (a damaged newest one)

    def table(self, name: str) -> Any | None:
        cached = self._tables.get(name)
        if cached is not None:
            # Another process may have committed since we opened the handle.
            cached.checkout_latest()
            return cached
        self._put_back(name, newest_damaged=False)  # a deleted newest manifest, _versions/ or table folder
        if name not in self.db.list_tables().tables:
            return None
        try:
            table = open_checked(self.db, name)
        except BaseException as exc:  # "does not have sufficient data", a Rust panic: a torn manifest
            if not is_lance_failure(exc):
                raise
            table = self._open_damaged(name, exc)
        self._tables[name] = table
        return table

    def _put_back(self, name: str, newest_damaged: bool) -> bool:
        line = put_back(self.path, name, newest_damaged)
        if line is not None:
            self.fallbacks.append(line)
        return line is not None

    def _open_damaged(self, name: str, exc: BaseException) -> Any:
        """Table `name` whose newest manifest failed to open: the case's copy of that manifest
        put back (store/lance_manifest_copy.py), else the newest older version that opens."""
        if self._put_back(name, newest_damaged=True):
            try:
                return open_checked(self.db, name)
            except BaseException as again:  # noqa: BLE001 - a Rust panic is a BaseException
                if not is_lance_failure(again):
                    raise
                exc = again
        return open_older(self.db, self.path, name, exc, self.fallbacks)

    def keep_manifest_copies(self) -> None:
        """Copy each table's newest manifest beside the dataset (after a commit, writer lock held)."""
        for name in (CHUNKS, DOCUMENTS):
            keep_copy(self.path, name)

    def replace_handle(self, name: str, table: Any) -> None:
        """Use `table` for `name` from now on (a table rewritten by store/lance_salvage.py)."""
        self._tables[name] = table
        self._row_ids = None

    def set_aside(self, name: str) -> str:
        """Move table `name`'s folder aside (`<name>.lance.damaged-<time>`: no version of it opens);
        the next write creates the table again. Returns the new folder's name."""
        aside = self.path / f"{name}.lance.damaged-{time.strftime('%Y%m%d-%H%M%S')}"
        rename_durably(self.path / f"{name}.lance", aside)
        self._tables.pop(name, None)
        self._row_ids = None
        log.warning("LanceDB table %s: no version opens; its folder was moved to %s", name, aside.name)
        return aside.name

    def ensure(self, name: str, schema: pa.Schema) -> Any:
        table = self.table(name)
        if table is None:
            table = self.db.create_table(name, schema=schema, exist_ok=True)
            self._tables[name] = table
        return table

    def durable(self) -> None:
        """The commit since `mark_commit_start` on disk, and its manifests copied
        (store/lance_manifest_copy.py)."""
        fsync_tree(self.path, self._commit_started)
        self.keep_manifest_copies()

    def mark_commit_start(self) -> None:
        self._commit_started = time.time()

    # -- writes ---------------------------------------------------------------------------

    def replace_document_chunks(self, doc_id: str, rows: pa.Table) -> None:
        """Swap all of a document's chunks for `rows` in one atomic commit.

        Embedding columns the table lacks are added first (null for existing rows); columns
        the table has and `rows` lack are written as null.
        """
        table = self.ensure(CHUNKS, rows.schema)
        have = set(table.schema.names)
        new_fields = [f for f in rows.schema if f.name not in have]
        if new_fields:
            table.add_columns(new_fields)
        for f in table.schema:
            if f.name not in rows.schema.names:
                rows = rows.append_column(f, pa.nulls(rows.num_rows, f.type))
        rows = rows.select(table.schema.names).cast(table.schema)
        (
            table.merge_insert("chunk_id")
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .when_not_matched_by_source_delete(f"doc_id = {sql_str(doc_id)}")
            .execute(rows)
        )

    def upsert_document(self, row: dict[str, Any]) -> None:
        """Write one document row (keys beyond DOCUMENT_SCHEMA's columns go to `meta_json`)."""
        self.upsert_documents([row])

    def upsert_documents(self, rows: list[dict[str, Any]]) -> None:
        """Write document rows in one commit: each replaces the row of its doc_id."""
        table = self.ensure(DOCUMENTS, DOCUMENT_SCHEMA)
        full = []
        for row in rows:
            extra = {k: v for k, v in row.items() if k not in DOCUMENT_SCHEMA.names}
            full.append(
                {**row, META_JSON: json.dumps(extra, ensure_ascii=False, default=str) if extra else None}
            )
        data = pa.Table.from_pylist(full, schema=DOCUMENT_SCHEMA)
        table.merge_insert("doc_id").when_matched_update_all().when_not_matched_insert_all().execute(data)

    def delete_document(self, doc_id: str) -> None:
        for name in (CHUNKS, DOCUMENTS):
            table = self.table(name)
            if table is not None:
                table.delete(f"doc_id = {sql_str(doc_id)}")

    def maintain(self) -> list[str]:
        """Keep reads fast after writes: compact small fragments, create or refresh indexes.

        Compaction runs on both tables once small fragments pile up. Above VECTOR_INDEX_MIN_ROWS
        chunks: a scalar index on chunk_id (candidate fetches by id) and an IVF_HNSW_SQ index on
        the E1 vectors, refreshed by `optimize()` once enough rows are unindexed. Each step is
        one atomic LanceDB commit, made durable and its manifests copied. Returns what was done
        (for logs and progress).
        """
        self.mark_commit_start()
        done = self._maintain()
        if done:
            self.durable()
        return done

    def _maintain(self) -> list[str]:
        done: list[str] = []
        for name in (CHUNKS, DOCUMENTS):
            table = self.table(name)
            if table is None:
                continue
            small = int(table.stats()["fragment_stats"]["num_small_fragments"])
            if small > MAX_SMALL_FRAGMENTS:
                table.optimize()
                done.append(f"{name}: {small} small fragments compacted")
        table = self.table(CHUNKS)
        if table is None:
            return done
        rows = int(table.count_rows())
        if rows < VECTOR_INDEX_MIN_ROWS:
            return done
        existing = {tuple(ix.columns): ix for ix in table.list_indices()}
        if ("chunk_id",) not in existing:
            table.create_index("chunk_id", config=BTree())
            done.append("chunk_id index")
        if (VECTOR,) not in existing:
            partitions = max(1, int(rows**0.5 / 4))
            table.create_index(VECTOR, config=HnswSq(distance_type="cosine", num_partitions=partitions))
            done.append(f"vector index ({rows} rows)")
        else:
            stats = table.index_stats(existing[(VECTOR,)].name)
            unindexed = int(getattr(stats, "num_unindexed_rows", 0) or 0)
            if unindexed > REINDEX_UNINDEXED_SHARE * rows:
                table.optimize()
                done.append(f"indexes refreshed ({unindexed} new rows)")
        return done

    # -- reads ----------------------------------------------------------------------------

    def count_chunks(self, doc_id: str, gen: int | None = None) -> int:
        table = self.table(CHUNKS)
        if table is None:
            return 0
        where = f"doc_id = {sql_str(doc_id)}"
        if gen is not None:
            where += f" AND gen = {int(gen)}"
        return int(table.count_rows(where))

    def fetch_table(self, chunk_ids: list[str], columns: list[str]) -> pa.Table:
        """The rows of `chunk_ids` as Arrow (vectors stay columnar: no per-float Python objects).

        Columns the table does not have (a slot's embedding columns before any model filled
        them in this case) are left out of the result. Rows are taken by row id
        through a chunk_id -> row id map of the current table version (half the cost of an
        `IN (...)` filter, which pays ~10 ms of planning and index lookup per query at 100k
        chunks); the filter is the fallback when the map is stale or an id is unknown.
        """
        table = self.table(CHUNKS)
        if table is None or not chunk_ids:
            return pa.table({"chunk_id": pa.array([], pa.string())})
        have = set(table.schema.names)  # one call: each `table.schema` is a round trip (~0.5 ms)
        wanted = list(dict.fromkeys(["chunk_id", *(c for c in columns if c in have)]))
        taken = self._take(table, chunk_ids, wanted)
        if taken is not None:
            return taken
        query = table.search().where(sql_in("chunk_id", chunk_ids)).select(wanted).limit(len(chunk_ids))
        return query.to_arrow().select(wanted)

    def _take(self, table: Any, chunk_ids: list[str], wanted: list[str]) -> pa.Table | None:
        """`chunk_ids` by row id, or None when that cannot be trusted (then the caller filters)."""
        ids = self.row_id_map(table)
        rows = [ids.get(c) for c in chunk_ids]
        if any(r is None for r in rows):
            return None  # not in this version (deleted, or written after the map): let the filter say
        try:
            result = table.take_row_ids(rows).select(wanted).to_arrow()
        except Exception as e:  # a concurrent compaction moved the rows
            log.debug("take by row id failed (%s); filtering instead", e)
            return None
        if sorted(result.column("chunk_id").to_pylist()) != sorted(chunk_ids):
            return None
        return result.select(wanted)

    def row_id_map(self, table: Any) -> dict[str, int]:
        """chunk_id -> row id for the table's current version (rebuilt after every write: ~85 ms
        at 100k chunks, once)."""
        version = int(table.version)
        with self._row_ids_lock:
            if self._row_ids is None or self._row_ids.version != version:
                n = int(table.count_rows())
                scan = table.search().select(["chunk_id"]).with_row_id(True).limit(max(n, 1)).to_arrow()
                mapping = dict(
                    zip(scan.column("chunk_id").to_pylist(), scan.column("_rowid").to_pylist(), strict=True)
                )
                self._row_ids = RowIdMap(version, mapping)
            return self._row_ids.ids

    def document_chunks(self, doc_id: str, gen: int, with_embeddings: bool = False) -> pa.Table:
        """One document generation's chunks in reading order (all columns if `with_embeddings`)."""
        table = self.table(CHUNKS)
        if table is None:
            return pa.table({c: [] for c in RESULT_COLUMNS})
        where = f"doc_id = {sql_str(doc_id)} AND gen = {int(gen)}"
        n = max(int(table.count_rows(where)), 1)
        query = table.search().where(where)
        if not with_embeddings:
            query = query.select(RESULT_COLUMNS)  # every table has them (store/migrations)
        return query.limit(n).to_arrow().sort_by("seq")

    def fetch_chunks(
        self, chunk_ids: list[str], columns: list[str] | None = None
    ) -> dict[str, dict[str, Any]]:
        """chunk_id -> row (as a dict) for the chunks that exist; `columns` default to RESULT_COLUMNS."""
        rows = self.fetch_table(chunk_ids, columns or RESULT_COLUMNS).to_pylist()
        return {r["chunk_id"]: r for r in rows}

    def count_missing(self, column: str) -> int:
        """Chunks whose `column` is null (or all chunks if the table lacks the column: an
        embedding column no model has filled in this case yet)."""
        table = self.table(CHUNKS)
        if table is None:
            return 0
        if column not in table.schema.names:
            return int(table.count_rows())
        return int(table.count_rows(f"{column} IS NULL"))

    def doc_ids_in_chunks(self) -> set[str]:
        table = self.table(CHUNKS)
        if table is None:
            return set()
        n = int(table.count_rows())
        if n == 0:
            return set()
        ids = table.search().select(["doc_id"]).limit(n).to_arrow().column("doc_id")
        return set(ids.unique().to_pylist())

    def dense_search(
        self,
        vector: np.ndarray,
        limit: int,
        where: str | None,
        columns: list[str] | None = None,
        exact: bool = False,
    ) -> pa.Table:
        """The `limit` nearest chunks by cosine to `vector`: chunk_id, doc_id, gen, _distance and
        `columns` (those the table has: a slot's embedding columns may not be there yet), as Arrow. Reading ranking columns here costs ~1-2 ms for
        100 rows; fetching them later by id is a separate query. `exact`: scan every row the
        filter keeps instead of the ANN index (an index probed under a narrow filter finds too few)."""
        table = self.table(CHUNKS)
        if table is None:
            return pa.table({"chunk_id": pa.array([], pa.string())})
        have = set(table.schema.names)
        wanted = list(dict.fromkeys(["chunk_id", "doc_id", "gen", *(c for c in columns or [] if c in have)]))
        query = table.search(vector.astype(np.float32), vector_column_name=VECTOR).metric("cosine")
        if where:
            query = query.where(where, prefilter=True)
        if exact:
            query = query.bypass_vector_index()
        return query.select([*wanted, "_distance"]).limit(limit).to_arrow()
