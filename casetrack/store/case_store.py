"""One case on disk: journal + LanceDB tables + tantivy index, and the commit protocol.

Layout of `cases/<id>/`:
    case.json        the case's own record (name, language, embedding model, the version of its
                     stored data: store/migrations) — portable
    journal.sqlite   document states (see journal.py)
    lance/           LanceDB dataset: tables `documents` and `chunks` (source of truth)
    bm25/            tantivy index (derived; rebuilt from LanceDB when it drifts)
    writer.lock      single-writer lock
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import pyarrow as pa

from casetrack import atomic_files
from casetrack.domain.cases import CaseSettings
from casetrack.logsafe import safe_for_log
from casetrack.store.bm25 import Bm25Index
from casetrack.store.journal import DocState, JournalEntry
from casetrack.store.journal_repair import (
    adopt_lost_documents,
    journal_behind,
    open_journal,
    unjournaled_chunks,
)
from casetrack.store.lance_repair import lance_short, make_whole
from casetrack.store.lance_tables import CHUNKS, LanceTables, keyword_texts
from casetrack.store.lock import WriterLock, briefly_locked
from casetrack.store.migrations import (
    VERSION_KEY,
    after_recovery,
    before_recovery,
    current_version,
    stored_version,
)
from casetrack.store.registry import CaseRecord

log = logging.getLogger(__name__)

CASE_JSON_LOCK = "case.json.lock"  # held while case.json is read, changed and replaced


def chunk_id_for(doc_id: str, gen: int, seq: int) -> str:
    return f"{doc_id}-{gen}-{seq:05d}"


def gen_of_chunk(chunk_id: str) -> int:
    return int(chunk_id.rsplit("-", 2)[1])


def doc_of_chunk(chunk_id: str) -> str:
    """The document id of a chunk id `<doc>-<gen>-<seq>`."""
    return chunk_id.rsplit("-", 2)[0]


class CaseStore:
    def __init__(self, record: CaseRecord, case_dir: Path, lance: LanceTables | None = None) -> None:
        """`lance`: an already open dataset of this case (long-lived processes reuse table
        handles, so vector and scalar indexes stay loaded between searches)."""
        self.record = record
        self.dir = case_dir
        if not case_dir.is_dir():
            raise FileNotFoundError(case_dir)
        # A folder with none of the case's files is a new case: it is written at today's version.
        new = not (
            (case_dir / "case.json").exists()
            or (case_dir / "journal.sqlite").exists()
            or any((case_dir / "lance").glob("*.lance"))
        )
        self.journal, self.journal_damaged = open_journal(case_dir / "journal.sqlite")
        self.lance = lance if lance is not None else LanceTables(case_dir / "lance")
        self.bm25 = Bm25Index(case_dir / "bm25", record.language)
        self.lock = WriterLock(case_dir / "writer.lock", record.name)
        self._write_case_json(**({VERSION_KEY: current_version()} if new else {}))

    def close(self) -> None:
        self.bm25.close_writer()
        self.lock.release()
        self.journal.close()

    # -- case-level facts -------------------------------------------------------------------

    @property
    def _case_json_path(self) -> Path:
        return self.dir / "case.json"

    def case_info(self) -> dict[str, Any]:
        try:
            data: dict[str, Any] = json.loads(self._case_json_path.read_text(encoding="utf-8"))
            return data
        except (OSError, ValueError):
            return {}

    def _write_case_json(self, **extra: Any) -> None:
        """Merge `extra` and the registry's record into case.json: read, change and replace under
        `case.json.lock`, so a CLI and the daemon changing it at once lose nothing."""
        with briefly_locked(self.dir / CASE_JSON_LOCK):
            current = self.case_info()
            info = {**current, **self.record.to_json(), **extra}
            if info == current:
                return  # opening a case for reading writes nothing
            atomic_files.write_json(self._case_json_path, info, indent=2)

    def schema_version(self) -> int:
        """The version of the case's stored data (case.json; 0: written before versions existed)."""
        return stored_version(self.case_info())

    def record_schema_version(self, version: int) -> None:
        """Record that the stored data is at `version` (store/migrations, after a migration)."""
        self._write_case_json(**{VERSION_KEY: version})

    def require_current(self) -> None:
        """Refuse to read a case still at an older version than this CaseTrack reads (it is
        upgraded when opened with its writer lock free; another process holds it now)."""
        version = self.schema_version()
        if version >= current_version():
            return
        from casetrack.errors import CaseBusyError, Fix

        raise CaseBusyError(
            f"Case '{self.record.name}' is stored in an older format (version {version}; this "
            f"CaseTrack reads version {current_version()}), and another CaseTrack process"
            f"{self.lock.holder()} is writing it, so it cannot be upgraded now.",
            fix=Fix(
                "Wait for that process to finish (an older CaseTrack: stop it), then run the command "
                "again; the case is upgraded when it is opened, or with",
                f'casetrack case check "{self.record.name}" --repair',
            ),
        )

    def settings(self) -> CaseSettings:
        """The case's own settings (case.json "settings"; defaults for what it lacks)."""
        raw = self.case_info().get("settings")
        raw = raw if isinstance(raw, dict) else {}
        return {"keep_revoked": bool(raw.get("keep_revoked", False))}

    def update_settings(self, **changes: Any) -> CaseSettings:
        """Change some of the case's settings (unknown names refused); returns them all."""
        unknown = set(changes) - set(CaseSettings.__annotations__)
        if unknown:
            raise ValueError(f"unknown case setting(s): {', '.join(sorted(unknown))}")
        merged: CaseSettings = {**self.settings(), **changes}  # type: ignore[typeddict-item]
        self._write_case_json(settings=dict(merged))
        return merged

    def folders(self) -> list[dict[str, Any]]:
        """The folders this case mirrors (`ingest-folder --sync`): path, recursive, and what the
        last sync learned of them (ingest/folder_sync.py `FolderRecord`)."""
        raw = self.case_info().get("folders")
        return (
            [f for f in raw if isinstance(f, dict) and isinstance(f.get("path"), str)]
            if isinstance(raw, list)
            else []
        )

    def remember_folder(self, record: dict[str, Any]) -> None:
        """Add one mirrored folder, or replace the record of the same path (the caller holds the lock)."""
        kept = [f for f in self.folders() if f["path"] != record["path"]]
        self._write_case_json(folders=[*kept, record])

    def forget_folder(self, path: str) -> bool:
        """Stop mirroring a folder (its documents stay); whether the case remembered it."""
        kept = [f for f in self.folders() if f["path"] != path]
        if len(kept) == len(self.folders()):
            return False
        self._write_case_json(folders=kept)
        return True

    def watched(self) -> list[dict[str, Any]]:
        """The folders the daemon watches for this case (`case set --watch`): path, recursive."""
        return watched_in(self.dir)

    def set_watched(self, path: str, recursive: bool | None) -> bool:
        """Watch a folder (`recursive` None: stop watching it); whether anything changed (the
        caller holds the lock)."""
        kept = [f for f in self.watched() if f["path"] != path]
        entries = kept if recursive is None else [*kept, {"path": path, "recursive": recursive}]
        if entries == self.watched():
            return False
        self._write_case_json(watched=entries)
        return True

    def models(self) -> dict[str, dict[str, Any]]:
        """slot -> {"fingerprint", "dim", "codec"} of the models this case was embedded with."""
        models = self.case_info().get("models")
        return dict(models) if isinstance(models, dict) else {}

    def record_models(self, used: dict[str, dict[str, Any]]) -> None:
        """Remember which model filled each slot (the caller refused mismatches beforehand)."""
        merged = {**self.models(), **used}
        e1 = merged.get("E1", {})
        self._write_case_json(
            models=merged, embedding_model=e1.get("fingerprint"), embedding_dim=e1.get("dim")
        )

    # -- reads --------------------------------------------------------------------------------

    def visible(self) -> dict[str, int]:
        """doc_id -> generation of every committed document (what search may show)."""
        return self.journal.committed()

    def documents(self) -> list[JournalEntry]:
        return [e for e in self.journal.all() if e.state == DocState.COMMITTED]

    # -- the commit protocol (caller holds the writer lock) -----------------------------------

    def commit_document(
        self,
        doc_id: str,
        name: str,
        source_path: str | None,
        sha256: str,
        chunks: pa.Table,
        document_row: dict[str, Any],
    ) -> int:
        """Write one document to both stores; returns its new generation.

        pending → LanceDB (chunks swap in one commit, then the document row) → fsync →
        lance_committed → tantivy commit → committed. Recovery can finish or undo any prefix.
        """
        assert self.lock.held, "commit_document needs the case's writer lock"
        meta = {k: v for k, v in document_row.items() if k not in ("doc_id", "gen")}
        gen = self.journal.begin(doc_id, name, source_path, sha256, chunks.num_rows, meta)
        ids = [chunk_id_for(doc_id, gen, int(s)) for s in chunks.column("seq").to_pylist()]
        n = chunks.num_rows
        for column, values in (
            ("chunk_id", pa.array(ids, pa.string())),
            ("doc_id", pa.array([doc_id] * n, pa.string())),
            ("gen", pa.array([gen] * n, pa.int32())),
        ):
            chunks = chunks.set_column(
                chunks.schema.get_field_index(column), chunks.schema.field(column), values
            )
        self.lance.mark_commit_start()
        self.lance.replace_document_chunks(doc_id, chunks)
        self.lance.upsert_document({**document_row, "doc_id": doc_id, "gen": gen})
        self.lance.durable()
        self.journal.set_state(doc_id, DocState.LANCE_COMMITTED)
        self.bm25.replace_document(doc_id, zip(ids, keyword_texts(chunks), strict=True))
        self.journal.set_state(doc_id, DocState.COMMITTED)
        return gen

    def rename_document(
        self, doc_id: str, name: str, source_path: str | None, meta_changes: dict[str, Any] | None = None
    ) -> None:
        """Give a committed document a new name and file path (its file was renamed or moved: same
        bytes). Chunks, vectors and the keyword index hold neither, so only the document row and
        the journal change: LanceDB first, so a crash in between leaves the old name in the journal
        and the next sync renames it again."""
        assert self.lock.held, "rename_document needs the case's writer lock"
        entry = self.journal.get(doc_id)
        if entry is None or entry.state != DocState.COMMITTED:
            raise RuntimeError(f"document {doc_id} is not committed; it cannot be renamed")
        meta = {**entry.meta, **(meta_changes or {}), "name": name, "source_path": source_path}
        self.lance.mark_commit_start()
        self.lance.upsert_document({**meta, "doc_id": doc_id, "gen": entry.gen})
        self.lance.durable()
        self.journal.rename(doc_id, name, source_path, meta)

    def delete_document(self, doc_id: str) -> None:
        assert self.lock.held, "delete_document needs the case's writer lock"
        self.journal.set_state(doc_id, DocState.DELETING)
        self._finish_delete(doc_id)

    def _finish_delete(self, doc_id: str) -> None:
        """Remove the document from both stores and from the disk (store/purge.py), then from
        the journal: until then it stays `deleting` and recovery repeats every step."""
        from casetrack.store.purge import drop_old_versions, purge_chunks, rebuild_bm25, scrub_set_aside

        entry = self.journal.get(doc_id)
        self.lance.mark_commit_start()
        rewritten = purge_chunks(self.lance, doc_id)
        self.lance.delete_document(doc_id)
        drop_old_versions(self.lance)
        self.lance.durable()
        kept = {
            e.doc_id: e.gen
            for e in self.journal.all()
            if e.doc_id != doc_id and e.state == DocState.COMMITTED
        }
        rebuild_bm25(self.bm25, self.lance, kept)
        if entry is not None:  # its name, path and text out of what repairs set aside, too
            scrub_set_aside(self.dir, entry.name, entry.sha256, entry.source_path)
        self.journal.remove(doc_id)
        log.info(
            "case %s: deleted %s from disk (%d rows of other documents rewritten)",
            safe_for_log(self.record.name),
            doc_id,
            rewritten,
        )

    def _sync_bm25(self, doc_id: str, gen: int) -> None:
        rows = self.lance.document_chunks(doc_id, gen)
        pairs = zip(rows.column("chunk_id").to_pylist(), keyword_texts(rows), strict=True)
        self.bm25.replace_document(doc_id, pairs)

    # -- recovery ----------------------------------------------------------------------------

    def needs_recovery(self) -> bool:
        """Unfinished documents, a keyword index to rebuild, or one that holds another number of
        chunks than the committed documents (a lost or damaged index file)."""
        self.lance.table(CHUNKS)  # opening sets a damaged newest version aside (store/lance_versions.py)
        if self.lance.fallbacks or self.bm25.needs_rebuild():
            return True
        entries = self.journal.all()  # read once: this runs at every open (every search)
        if any(e.state != DocState.COMMITTED for e in entries) or journal_behind(len(entries), self.lance):
            return True
        # LanceDB holding fewer rows than the journal needs: a version was lost (counts from the manifest).
        return (
            self.bm25.total() != sum(e.expected_chunks for e in entries)
            or lance_short(self.lance, entries)
            or self.schema_version() < current_version()  # stored data to migrate (store/migrations)
        )

    def incomplete_documents(self) -> list[tuple[JournalEntry, int]]:
        """Committed documents whose chunks LanceDB does not hold in full, with how many it has."""
        counted = [(e, self.lance.count_chunks(e.doc_id, e.gen)) for e in self.documents()]
        return [(e, have) for e, have in counted if have != e.expected_chunks]

    def recover(self) -> list[str]:
        """Roll every unfinished document forward or back, repair tantivy drift, and bring the
        stored data up to this CaseTrack's version (store/migrations: columns first, so
        recovery writes rows of today's shape; rows after, on the consistent case).

        Returns a line per action taken (logged, and shown by `casetrack case info`).
        """
        assert self.lock.held, "recover needs the case's writer lock"
        started = time.monotonic()
        actions = before_recovery(self)
        if self.bm25.needs_rebuild():  # before the journal loop, so nothing is synced twice
            why = f"was damaged ({self.bm25.damaged})" if self.bm25.damaged else "analyzer changed"
            self.bm25.reset()
            actions.append(f"keyword index {why}: rebuilt from the stored text")
        if self.journal_damaged:
            actions.append(self.journal_damaged)
            self.journal_damaged = None
        self.lance.table(CHUNKS)
        lost_rows = bool(self.lance.fallbacks)
        actions += self.lance.fallbacks
        self.lance.fallbacks = []
        for entry in self.journal.unfinished():
            actions.append(self._recover_entry(entry))
        restored = lost_rows or lance_short(self.lance, self.documents())
        if restored:
            actions += make_whole(self)  # store/lance_repair.py: restored from an older version, or named
        actions += adopt_lost_documents(self.journal, self.lance)[1]
        actions += self._repair_drift()
        # Rows restored from an older LanceDB version may predate any migration: all run again.
        actions += after_recovery(self, restored)
        self.lance.keep_manifest_copies()  # a case from before the copies gets them on its first write
        if actions:
            log.info(
                "case %s: recovery took %.2fs: %s",
                safe_for_log(self.record.name),
                time.monotonic() - started,
                safe_for_log("; ".join(actions)),
            )
        return actions

    def _recover_entry(self, entry: JournalEntry) -> str:
        doc = entry.doc_id
        if entry.state == DocState.DELETING:
            self._finish_delete(doc)
            return f"finished deleting {entry.name}"
        if entry.state == DocState.PENDING:
            have = self.lance.count_chunks(doc, entry.gen)
            if have != entry.expected_chunks or have == 0:
                if entry.prev_gen is not None:
                    self.journal.restore_previous(
                        doc,
                        self.lance.count_chunks(doc, entry.prev_gen),
                        self._document_row_meta(doc, entry.prev_gen),
                    )
                    return f"kept the previous version of {entry.name} (interrupted re-ingest)"
                self._finish_delete(doc)
                return f"rolled back interrupted ingest of {entry.name}"
            self.lance.mark_commit_start()
            self.lance.upsert_document({**entry.meta, "doc_id": doc, "gen": entry.gen})
            self.lance.durable()
            self.journal.set_state(doc, DocState.LANCE_COMMITTED)
        self._sync_bm25(doc, entry.gen)
        self.journal.set_state(doc, DocState.COMMITTED)
        return f"completed interrupted ingest of {entry.name}"

    def _document_row_meta(self, doc_id: str, gen: int) -> dict[str, Any] | None:
        """The LanceDB document row's fields of `doc_id` at generation `gen`, if that row is there."""
        from casetrack.store.lance_tables import DOCUMENTS, sql_str

        table = self.lance.table(DOCUMENTS)
        if table is None:
            return None
        rows = (
            table.search()
            .where(f"doc_id = {sql_str(doc_id)} AND gen = {int(gen)}")
            .limit(1)
            .to_arrow()
            .to_pylist()
        )
        return {k: v for k, v in rows[0].items() if k not in ("doc_id", "gen")} if rows else None

    def _repair_drift(self) -> list[str]:
        actions: list[str] = []
        committed = {e.doc_id: e for e in self.documents()}
        indexed = self.bm25.count_for(committed)
        for doc_id, entry in committed.items():
            if indexed[doc_id] != entry.expected_chunks:
                self._sync_bm25(doc_id, entry.gen)
                actions.append(f"rebuilt keyword index of {entry.name}")
        if self.bm25.total() != sum(e.expected_chunks for e in committed.values()):
            for doc_id in self.bm25.all_doc_ids() - set(committed):
                self.bm25.delete_document(doc_id)
                actions.append(f"dropped orphan keyword entries of {doc_id}")
        # Chunks no journal entry and no document row account for are kept, never deleted on a
        # guess (store/journal_repair.py): they stay out of search until the file is ingested again.
        for doc_id in sorted(unjournaled_chunks(self.journal, self.lance)):
            actions.append(
                f"kept chunks of an unknown document {doc_id} out of search (ingest its file again)"
            )
        return actions


def watched_in(case_dir: Path) -> list[dict[str, Any]]:
    """A case's watched folders read from its case.json alone (the daemon's watcher polls it
    every few seconds without opening the case's stores)."""
    try:
        raw = json.loads((case_dir / "case.json").read_text(encoding="utf-8")).get("watched")
    except (OSError, ValueError, AttributeError):
        return []
    return (
        [
            {"path": f["path"], "recursive": bool(f.get("recursive", False))}
            for f in raw
            if isinstance(f, dict) and isinstance(f.get("path"), str)
        ]
        if isinstance(raw, list)
        else []
    )
