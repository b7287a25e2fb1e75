"""After LanceDB lost rows (a damaged data file, a manifest set aside or deleted): every document
the journal says is committed is made whole again or named as lost.

  * a table that cannot be read in full is rewritten from its readable rows (lance_salvage.py);
  * a committed document missing chunks gets them back from the newest older table version that
    holds them all (the files of a version before a compaction, say);
  * a document no version holds in full leaves the journal, the keyword index and LanceDB (its
    remaining rows too), so its file can be ingested again — and the action says which file and
    the command;
  * a document row lost while its chunks are whole is written again from the journal.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from casetrack import atomic_files
from casetrack.logsafe import safe_for_log
from casetrack.store.journal import DocState, JournalEntry
from casetrack.store.lance_salvage import is_lance_failure, older_copy, rewrite_readable, unreadable
from casetrack.store.lance_tables import CHUNKS, DOCUMENTS, LanceTables, sql_str

if TYPE_CHECKING:
    from casetrack.store.bm25 import Bm25Index
    from casetrack.store.journal import Journal
    from casetrack.store.registry import CaseRecord


class CaseStore(Protocol):
    """What a repair needs of store/case_store.py's CaseStore (which imports this module)."""

    dir: Path
    record: CaseRecord
    lance: LanceTables
    journal: Journal
    bm25: Bm25Index

    def documents(self) -> list[JournalEntry]: ...

    def incomplete_documents(self) -> list[tuple[JournalEntry, int]]: ...


log = logging.getLogger(__name__)

# No manifest of the table opens and the case keeps no copy of one (a case from before the copies).
NO_VERSION = "none of its versions can be read (its manifests are missing or damaged)"


def damaged_tables(store: CaseStore) -> dict[str, str]:
    """table -> why it cannot be read in full (reads every row: `case check` only)."""
    found = {}
    for name in (CHUNKS, DOCUMENTS):
        try:
            table = store.lance.table(name)
        except BaseException as exc:  # noqa: BLE001 - a Rust panic is a BaseException
            if not is_lance_failure(exc):
                raise
            found[name] = NO_VERSION
            continue
        why = unreadable(table) if table is not None else None
        if why is not None:
            found[name] = why
    return found


def rewrite_damaged(store: CaseStore) -> list[str]:
    """Each table that cannot be read in full rewritten from its readable rows (caller holds the
    writer lock); the damaged files stay on disk, referenced by the older versions only."""
    actions = []
    for name, why in damaged_tables(store).items():
        if why == NO_VERSION:
            aside = store.lance.set_aside(name)
            actions.append(
                f"LanceDB table {name}: {why}; set it aside as {aside} (the documents it held are "
                "restored or named below)"
            )
            continue
        table = store.lance.table(name)
        fresh, kept, lost = rewrite_readable(store.lance.db, name, table)
        store.lance.replace_handle(name, fresh)
        actions.append(
            f"LanceDB table {name}: {why}; rewrote it from the {kept} rows that could be read "
            f"({lost} could not)"
        )
    if actions:
        store.lance.keep_manifest_copies()
    return actions


def lance_short(lance: LanceTables, entries: list[JournalEntry]) -> bool:
    """Cheap (counts from the manifest): LanceDB holds fewer chunks or document rows than the
    journal's committed `entries` need — rows were lost."""
    committed = [e for e in entries if e.state == DocState.COMMITTED]
    chunks = lance.table(CHUNKS)
    documents = lance.table(DOCUMENTS)
    have_chunks = int(chunks.count_rows()) if chunks is not None else 0
    have_rows = int(documents.count_rows()) if documents is not None else 0
    return have_chunks < sum(e.expected_chunks for e in committed) or have_rows < len(committed)


def make_whole(store: CaseStore) -> list[str]:
    """Every committed document whole in LanceDB, or out of the case with its file named."""
    actions: list[str] = []
    for entry, have in store.incomplete_documents():
        where = f"doc_id = {sql_str(entry.doc_id)} AND gen = {int(entry.gen)}"
        rows = (
            older_copy(store.lance.db, CHUNKS, where, entry.expected_chunks, set())
            if entry.expected_chunks
            else None
        )
        if rows is not None:
            store.lance.mark_commit_start()
            store.lance.replace_document_chunks(entry.doc_id, rows)
            store.lance.durable()
            actions.append(f"restored {entry.name} from an older LanceDB version ({rows.num_rows} chunks)")
        else:
            actions.append(forget(store, entry, have))
    actions += restore_document_rows(store)
    return actions


def forget(store: CaseStore, entry: JournalEntry, have: int) -> str:
    """Take a document whose text LanceDB lost out of every store, so its file can be ingested
    again; the action names the file and the command."""
    store.lance.mark_commit_start()
    store.lance.delete_document(entry.doc_id)
    store.lance.durable()
    store.bm25.delete_document(entry.doc_id)
    store.journal.remove(entry.doc_id)
    source = f' "{entry.source_path}"' if entry.source_path else f" {entry.name}"
    line = (
        f"lost {entry.name}: LanceDB's only copy of its text ({entry.expected_chunks - have} of "
        f"{entry.expected_chunks} chunks) was destroyed; ingest it again: "
        f'casetrack ingest --case "{store.record.name}"{source}'
    )
    log.warning("case %s: %s", safe_for_log(store.record.name), safe_for_log(line))
    remember_lost(store.dir, entry.name, entry.sha256, line, entry.source_path)
    return line


# -- documents lost, remembered until their files are ingested again ---------------------------

LOST_FILE = "lost_documents.json"


def remember_lost(case_dir: Path, name: str, sha256: str, line: str, source_path: str | None = None) -> None:
    """Keep the loss on disk: the command that found it may have been a search whose log nobody
    read; `case check` reports it until the file is ingested again."""
    entries = [e for e in _read_lost(case_dir) if e.get("name") != name]
    entries.append(
        {"name": name, "sha256": sha256, "message": line, "at": time.time(), "source_path": source_path}
    )
    atomic_files.write_json(case_dir / LOST_FILE, entries, indent=1)


def still_lost(store: CaseStore) -> list[str]:
    """The message of each lost document not ingested again since (the record forgets the others)."""
    entries = _read_lost(store.dir)
    if not entries:
        return []
    present = {e.name for e in store.documents()} | {e.sha256 for e in store.documents()}
    left = [e for e in entries if e.get("name") not in present and e.get("sha256") not in present]
    if len(left) != len(entries):
        path = store.dir / LOST_FILE
        try:
            if left:
                atomic_files.write_json(path, left, indent=1)
            else:
                path.unlink()
        except OSError:
            pass  # a read-only case folder: the record is pruned next time
    return [str(e.get("message") or e.get("name")) for e in left]


def lost_sources(case_dir: Path) -> list[tuple[Path, str]]:
    """(original file, its SHA-256 at ingest) of each lost document whose file is still where it
    was ingested from (the caller compares the content before ingesting it again)."""
    out = []
    for entry in _read_lost(case_dir):
        source = Path(str(entry.get("source_path") or ""))
        if entry.get("source_path") and source.is_file():
            out.append((source, str(entry.get("sha256") or "")))
    return out


def _read_lost(case_dir: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads((case_dir / LOST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []


def restore_document_rows(store: CaseStore) -> list[str]:
    """Document rows LanceDB lost, written again from the journal (which keeps the same fields)."""
    table = store.lance.table(DOCUMENTS)
    have: set[str] = set()
    if table is not None and int(table.count_rows()):
        n = int(table.count_rows())
        have = set(table.search().select(["doc_id"]).limit(n).to_arrow().column("doc_id").to_pylist())
    actions = []
    for entry in store.documents():
        if entry.doc_id in have:
            continue
        store.lance.mark_commit_start()
        store.lance.upsert_document(
            {
                **entry.meta,
                "name": entry.name,
                "source_path": entry.source_path,
                "sha256": entry.sha256,
                "chunk_count": entry.expected_chunks,
                "doc_id": entry.doc_id,
                "gen": entry.gen,
            }
        )
        store.lance.durable()
        actions.append(f"rewrote the LanceDB record of {entry.name} from the journal")
    return actions


def partial_warnings(store: CaseStore) -> list[str]:
    """What a search of the case cannot see, for its `warnings` (cheap: counts from the manifests
    and the record of lost documents): documents whose text was lost and not ingested again, and
    rows LanceDB no longer holds."""
    name = store.record.name
    lines = [f"results may be incomplete: {line}" for line in still_lost(store)]
    if lance_short(store.lance, store.documents()):
        lines.append(
            f"results may be incomplete: some of case '{name}'s stored passages could not be read; "
            f'repair it: casetrack case check "{name}" --repair'
        )
    return lines
