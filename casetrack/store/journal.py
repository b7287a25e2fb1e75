"""Per-case journal: the state of every document across the two stores.

LanceDB is the source of truth and tantivy is derived from it; neither can join a transaction
with the other. The journal (SQLite, WAL, synchronous=FULL) records where each document is in
its two-store commit so that start-up recovery can roll it forward or back:

    pending ──(LanceDB commit + fsync)──▶ lance_committed ──(tantivy commit)──▶ committed
    committed ──▶ deleting ──▶ (row removed)

Search only shows documents in state `committed`, at their committed generation. A re-ingest
keeps the previous generation in `prev_gen` until the new one is committed, so a crash in the
middle never loses the old version.
"""

from __future__ import annotations

import functools
import json
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from casetrack.store.sqlite_util import connect, migrate


class DocState(StrEnum):
    PENDING = "pending"
    LANCE_COMMITTED = "lance_committed"
    COMMITTED = "committed"
    DELETING = "deleting"


_MIGRATIONS = [
    """
    CREATE TABLE documents (
        doc_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        source_path TEXT,
        sha256 TEXT NOT NULL,
        state TEXT NOT NULL,
        gen INTEGER NOT NULL,
        prev_gen INTEGER,
        prev_sha256 TEXT,
        expected_chunks INTEGER NOT NULL,
        meta_json TEXT NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX documents_sha ON documents(sha256);
    CREATE INDEX documents_path ON documents(source_path)
    """,
]


@dataclass(frozen=True)
class JournalEntry:
    doc_id: str
    name: str
    source_path: str | None
    sha256: str
    state: DocState
    gen: int
    prev_gen: int | None
    prev_sha256: str | None
    expected_chunks: int
    # The document's metadata as stored (JSON text), parsed on first use: a search lists every
    # entry of the case but reads the metadata of few (a decision's authorities and their places
    # run to tens of kB: parsing every entry cost ~16 ms a search on a 78-decision case).
    stored_meta: str = field(repr=False)

    @functools.cached_property
    def meta(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.stored_meta)
        return parsed

    @property
    def visible_gen(self) -> int | None:
        """The generation search may show, or None while the document is not visible."""
        return self.gen if self.state == DocState.COMMITTED else None


class Journal:
    def __init__(self, path: Path) -> None:
        self._conn = connect(path)
        migrate(self._conn, _MIGRATIONS)

    def close(self) -> None:
        self._conn.close()

    def get(self, doc_id: str) -> JournalEntry | None:
        row = self._conn.execute("SELECT * FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
        return _entry(row) if row else None

    def all(self) -> list[JournalEntry]:
        return [_entry(r) for r in self._conn.execute("SELECT * FROM documents ORDER BY name").fetchall()]

    def committed(self) -> dict[str, int]:
        """doc_id -> committed generation, for filtering search results."""
        rows = self._conn.execute("SELECT doc_id, gen FROM documents WHERE state = 'committed'").fetchall()
        return {r["doc_id"]: int(r["gen"]) for r in rows}

    def unfinished(self) -> list[JournalEntry]:
        rows = self._conn.execute("SELECT * FROM documents WHERE state != 'committed'").fetchall()
        return [_entry(r) for r in rows]

    def find_by_sha(self, sha256: str) -> JournalEntry | None:
        row = self._conn.execute(
            "SELECT * FROM documents WHERE sha256 = ? AND state = 'committed'", (sha256,)
        ).fetchone()
        return _entry(row) if row else None

    def find_by_path(self, source_path: str) -> JournalEntry | None:
        row = self._conn.execute(
            "SELECT * FROM documents WHERE source_path = ? AND state = 'committed'", (source_path,)
        ).fetchone()
        return _entry(row) if row else None

    def begin(
        self,
        doc_id: str,
        name: str,
        source_path: str | None,
        sha256: str,
        expected_chunks: int,
        meta: dict[str, Any],
    ) -> int:
        """Record a new ingest (or re-ingest) as pending; returns the new generation."""
        old = self.get(doc_id)
        if old is not None and old.state != DocState.COMMITTED:
            raise RuntimeError(f"document {doc_id} is {old.state}; recover before re-ingesting")
        gen = old.gen + 1 if old else 1
        self._conn.execute(
            "INSERT OR REPLACE INTO documents VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                doc_id,
                name,
                source_path,
                sha256,
                DocState.PENDING.value,
                gen,
                old.gen if old else None,
                old.sha256 if old else None,
                expected_chunks,
                json.dumps(meta),
                time.time(),
            ),
        )
        return gen

    def adopt(
        self,
        doc_id: str,
        name: str,
        source_path: str | None,
        sha256: str,
        gen: int,
        expected_chunks: int,
        meta: dict[str, Any],
    ) -> None:
        """Record a document LanceDB holds in full as committed (journal recovery)."""
        self._conn.execute(
            "INSERT OR REPLACE INTO documents VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                doc_id,
                name,
                source_path,
                sha256,
                DocState.COMMITTED.value,
                gen,
                None,
                None,
                expected_chunks,
                json.dumps(meta, default=str),
                time.time(),
            ),
        )

    def set_state(self, doc_id: str, state: DocState) -> None:
        if state == DocState.COMMITTED:
            self._conn.execute(
                "UPDATE documents SET state = ?, prev_gen = NULL, prev_sha256 = NULL, updated_at = ? "
                "WHERE doc_id = ?",
                (state.value, time.time(), doc_id),
            )
        else:
            self._conn.execute(
                "UPDATE documents SET state = ?, updated_at = ? WHERE doc_id = ?",
                (state.value, time.time(), doc_id),
            )

    def restore_previous(self, doc_id: str, expected_chunks: int, meta: dict[str, Any] | None = None) -> None:
        """Roll a re-ingest back to the generation that was committed before it, with that
        generation's chunk count (and document fields, when known): the entry held the new one's."""
        entry = self.get(doc_id)
        if entry is None or entry.prev_gen is None:
            raise RuntimeError(f"document {doc_id} has no previous generation")
        self._conn.execute(
            "UPDATE documents SET state = 'committed', gen = prev_gen, sha256 = prev_sha256, "
            "prev_gen = NULL, prev_sha256 = NULL, expected_chunks = ?, meta_json = ?, updated_at = ? "
            "WHERE doc_id = ?",
            (expected_chunks, json.dumps(entry.meta if meta is None else meta), time.time(), doc_id),
        )

    def rename(self, doc_id: str, name: str, source_path: str | None, meta: dict[str, Any]) -> None:
        """A committed document's new name and file (a file renamed or moved: same bytes, so its
        chunks, vectors and generation stay as they are)."""
        self._conn.execute(
            "UPDATE documents SET name = ?, source_path = ?, meta_json = ?, updated_at = ? WHERE doc_id = ?",
            (name, source_path, json.dumps(meta), time.time(), doc_id),
        )

    def update_meta(self, doc_id: str, meta: dict[str, Any]) -> None:
        self._conn.execute("UPDATE documents SET meta_json = ? WHERE doc_id = ?", (json.dumps(meta), doc_id))

    def remove(self, doc_id: str) -> None:
        self._conn.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))


def _entry(row: Any) -> JournalEntry:
    return JournalEntry(
        doc_id=row["doc_id"],
        name=row["name"],
        source_path=row["source_path"],
        sha256=row["sha256"],
        state=DocState(row["state"]),
        gen=int(row["gen"]),
        prev_gen=None if row["prev_gen"] is None else int(row["prev_gen"]),
        prev_sha256=row["prev_sha256"],
        expected_chunks=int(row["expected_chunks"]),
        stored_meta=row["meta_json"],
    )
