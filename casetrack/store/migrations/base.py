"""What a migration is, and what it may ask of the case it upgrades (casetrack/store/migrations)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pyarrow as pa

if TYPE_CHECKING:
    from casetrack.store.bm25 import Bm25Index
    from casetrack.store.journal import Journal, JournalEntry
    from casetrack.store.lance_tables import LanceTables
    from casetrack.store.registry import CaseRecord

VERSION_KEY = "schema_version"  # in case.json; absent: 0, a case written before versions existed


class MigratingStore(Protocol):
    """What a migration needs of store/case_store.py's CaseStore (which imports this package)."""

    dir: Path
    record: CaseRecord
    lance: LanceTables
    journal: Journal
    bm25: Bm25Index

    def documents(self) -> list[JournalEntry]: ...

    def schema_version(self) -> int: ...

    def record_schema_version(self, version: int) -> None: ...


@dataclass(frozen=True)
class Migration:
    """One step of the stored data's schema, from version `number - 1` to `number`.

    `columns`: table -> the columns this version adds (nullable; null in the rows already there).
    They are added before the case's recovery runs, so recovery's own writes (a document row
    written again from the journal) find the tables in the shape today's code writes.
    `fill`: brings the stored rows up to this version, after recovery (the case is consistent);
    returns a line per thing it did (nothing: there was nothing to do). It must be idempotent:
    it runs again when case.json was lost, when rows came back from an older LanceDB version,
    and after a kill mid-migration.
    """

    number: int
    summary: str
    columns: Mapping[str, tuple[pa.Field, ...]] = field(default_factory=dict)
    fill: Callable[[MigratingStore], list[str]] | None = None


def stored_version(info: Mapping[str, Any]) -> int:
    """The schema version case.json records (0 when it records none)."""
    value = info.get(VERSION_KEY)
    return value if isinstance(value, int) and value >= 0 else 0
