"""The version of a case's stored data, and the migrations that bring an older case up to it.

The version is case.json's "schema_version" (none: 0, a case written before versions existed;
a new case is written at the current version). case.json rather than LanceDB table metadata because the
version covers every store of the case — both LanceDB tables, the keyword index, the journal — and
an empty case has no table to hold it; because it is read at every open without opening LanceDB
(`CaseStore.needs_recovery`, the daemon's start-up check); and because it travels with the
case (`case export`, a folder copied by hand). Losing it (case.json is rewritten from the registry
when damaged) only makes the migrations run again, which every migration must allow.

A migration runs inside `CaseStore.recover()`, under the case's writer lock: when a case is
opened for writing, when a read opens it and no writer holds the lock, and at the daemon's
start-up check (`needs_recovery` is true while a case is behind):
  1. before recovery, the columns every migration adds are added where a table lacks them (one
     atomic LanceDB commit per table; a table opened at an older version, its newest damaged,
     may lack any);
  2. recovery, as always (store/case_store.py);
  3. the `fill` of each pending migration, in order — of every migration when recovery restored
     rows from an older LanceDB version — then LanceDB is fsynced, and only then the new version
     written to case.json (atomically, casetrack/atomic_files.py).
A kill -9 at any moment leaves every store consistent (each LanceDB write is one atomic commit,
the journal is untouched) and the case at its old version; the next open runs the migration
again, which skips what it already did. Each upgrade is logged (stderr, the daemon's log) and
returned with recovery's actions.

A new migration N: a module `mN_<what it does>.py` holding `MIGRATION = Migration(N, ...)`
(migrations/base.py), appended to MIGRATIONS. A released migration is never edited. A case of a
newer version than `current_version()` is refused for writing (its writer may have changed what rows mean).
"""

from __future__ import annotations

import logging
import time

from casetrack.errors import CaseTrackError, Fix
from casetrack.logsafe import safe_for_log
from casetrack.store.migrations import m1_complete_rows, m2_near_duplicates
from casetrack.store.migrations.base import VERSION_KEY, MigratingStore, Migration, stored_version

__all__ = [
    "MIGRATIONS",
    "VERSION_KEY",
    "MigratingStore",
    "Migration",
    "after_recovery",
    "before_recovery",
    "current_version",
    "stored_version",
]

log = logging.getLogger(__name__)

MIGRATIONS: tuple[Migration, ...] = (m1_complete_rows.MIGRATION, m2_near_duplicates.MIGRATION)


def current_version() -> int:
    """The version this CaseTrack writes: its newest migration's number."""
    return len(MIGRATIONS)


def newer_case_error(name: str, version: int) -> CaseTrackError:
    """Refusal to change a case a newer CaseTrack wrote."""
    return CaseTrackError(
        f"Case '{name}' was written by a newer CaseTrack (stored data version {version}; this "
        f"CaseTrack knows versions up to {current_version()}), so this one does not change it.",
        fix=Fix("Update CaseTrack, then run the command again", "casetrack update"),
    )


def before_recovery(store: MigratingStore) -> list[str]:
    """Add the columns of every migration to the tables that lack them (writer lock held)."""
    version = store.schema_version()
    if version > current_version():
        raise newer_case_error(store.record.name, version)
    wanted: dict[str, list[str]] = {}
    lines: list[str] = []
    store.lance.mark_commit_start()
    for name in dict.fromkeys(n for m in MIGRATIONS for n in m.columns):
        table = store.lance.table(name)
        if table is None:
            continue  # created with today's columns on its first write
        have = set(table.schema.names)
        missing = [f for m in MIGRATIONS for f in m.columns.get(name, ()) if f.name not in have]
        missing = list({f.name: f for f in missing}.values())
        if missing:
            table.add_columns(missing)
            wanted[name] = [f.name for f in missing]
    if wanted:
        store.lance.durable()
        lines += [f"LanceDB table {name}: added columns {', '.join(cols)}" for name, cols in wanted.items()]
    return lines


def after_recovery(store: MigratingStore, restored: bool = False) -> list[str]:
    """Run the pending migrations' fills (every migration's when `restored`: rows came back from
    an older LanceDB version), then record the newest version. Returns what was done."""
    version = store.schema_version()
    current = current_version()
    todo = MIGRATIONS if restored else MIGRATIONS[version:]
    if not todo:
        return []
    started = time.monotonic()
    lines: list[str] = []
    store.lance.mark_commit_start()
    for migration in todo:
        if migration.fill is not None:
            lines += migration.fill(store)
    store.lance.durable()
    if version != current:
        store.record_schema_version(current)
        lines.append(f"stored data upgraded from version {version} to {current}")
    if lines:
        log.warning(
            "case %s: %s (%.2fs)",
            safe_for_log(store.record.name),
            safe_for_log("; ".join(lines)),
            time.monotonic() - started,
        )
    return lines
