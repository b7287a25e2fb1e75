"""A lost or damaged journal never costs documents: LanceDB is the source of truth.

The journal (journal.sqlite) says where each document stands between the two stores; losing it
(a sync tool, a restored backup, a disk error, a zeroed file) once made the next ingest treat
every stored chunk as an orphan and delete it. Now:
  * a journal SQLite cannot open is moved aside (`journal.sqlite.damaged-<time>`, kept for
    diagnosis) and a new one started;
  * every document LanceDB holds that the journal does not know is adopted back as committed
    when its `documents` row is there and its chunks at that generation are all present (the
    row is written only after the chunks were committed and made durable);
  * chunks of a document with no row (or with missing chunks) are kept, not deleted, and
    reported: they stay out of search until the file is ingested again.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path
from typing import Any

from casetrack.logsafe import safe_for_log
from casetrack.store.journal import Journal
from casetrack.store.lance_tables import DOCUMENTS, META_JSON, LanceTables
from casetrack.store.sqlite_util import is_busy, set_aside

log = logging.getLogger(__name__)

# Fields of a LanceDB document row that are not journal metadata.
_ROW_ONLY = ("doc_id", "gen")


def row_meta(row: dict[str, Any]) -> dict[str, Any]:
    """A LanceDB document row as journal metadata: its columns, and what `meta_json` kept."""
    meta = {k: v for k, v in row.items() if k not in (*_ROW_ONLY, META_JSON)}
    try:
        extra = json.loads(row.get(META_JSON) or "{}")
    except ValueError:
        extra = {}
    return {**meta, **extra} if isinstance(extra, dict) else meta


def open_journal(path: Path) -> tuple[Journal, str | None]:
    """The case's journal, and why a new one had to be started (None when it opened)."""
    try:
        return Journal(path), None
    except sqlite3.DatabaseError as exc:
        if is_busy(exc):
            raise  # another process is writing it: healthy, never set aside
        aside = set_aside(path)
        why = f"the journal could not be read ({exc}); it was moved to {aside.name} and rebuilt from LanceDB"
        log.warning("case journal %s: %s", safe_for_log(str(path)), safe_for_log(why))
        return Journal(path), why


def journal_behind(known: int, lance: LanceTables) -> bool:
    """Cheap (a count, for every open): LanceDB holds more documents than the `known` journal
    entries."""
    table = lance.table(DOCUMENTS)
    return table is not None and int(table.count_rows()) > known


def lost_documents(journal: Journal, lance: LanceTables) -> list[dict[str, Any]]:
    """LanceDB document rows the journal does not know."""
    table = lance.table(DOCUMENTS)
    if table is None:
        return []
    n = int(table.count_rows())
    if n == 0:
        return []
    known = {e.doc_id for e in journal.all()}
    rows = table.search().limit(n).to_arrow().to_pylist()
    return [r for r in rows if str(r["doc_id"]) not in known]


def adopt_lost_documents(journal: Journal, lance: LanceTables) -> tuple[list[str], list[str]]:
    """Adopt the documents LanceDB holds and the journal lost (see the module docstring).
    Returns (doc ids adopted, one line per action)."""
    adopted: list[str] = []
    actions: list[str] = []
    for row in lost_documents(journal, lance):
        doc_id, gen, name = str(row["doc_id"]), int(row["gen"]), str(row.get("name") or row["doc_id"])
        expected = int(row.get("chunk_count") or 0)
        have = lance.count_chunks(doc_id, gen)
        if have == 0:  # a record with no text at all (its chunks' version was lost): nothing to keep
            lance.delete_document(doc_id)
            actions.append(
                f"dropped the LanceDB record of {name} ({doc_id}): none of its text is stored; ingest "
                "its file again"
            )
            continue
        if expected <= 0 or have != expected:
            actions.append(
                f"kept {have} chunks of {name} ({doc_id}): its record is incomplete, so it stays out of "
                "search until the file is ingested again"
            )
            continue
        meta = row_meta(row)
        journal.adopt(doc_id, name, row.get("source_path"), str(row.get("sha256") or ""), gen, expected, meta)
        adopted.append(doc_id)
        actions.append(f"recovered {name} from LanceDB (the journal had lost it)")
    return adopted, actions


def unjournaled_chunks(journal: Journal, lance: LanceTables) -> set[str]:
    """Documents with chunks in LanceDB but no journal entry and no document row."""
    known = {e.doc_id for e in journal.all()}
    table = lance.table(DOCUMENTS)
    rows = set()
    if table is not None and int(table.count_rows()):
        rows = set(
            table.search()
            .select(["doc_id"])
            .limit(int(table.count_rows()))
            .to_arrow()
            .column("doc_id")
            .to_pylist()
        )
    return lance.doc_ids_in_chunks() - known - rows
