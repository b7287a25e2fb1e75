"""SQLite connections configured for durability and several processes at once."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from casetrack.atomic_files import rename_durably


def connect(path: Path) -> sqlite3.Connection:
    """WAL + synchronous=FULL: a committed transaction survives kill -9 and power loss.

    `busy_timeout` lets the CLI, Claude Desktop and Claude Code share one file without
    "database is locked" on short write bursts.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA busy_timeout=30000")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def migrate(conn: sqlite3.Connection, migrations: list[str]) -> None:
    """Apply numbered, append-only migrations (index = version - 1) once each."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    for number, sql in enumerate(migrations, start=1):
        if number <= version:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-check under the write lock: another process may have migrated meanwhile.
            current = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if current < number:
                for statement in sql.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version={number}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def is_busy(exc: BaseException) -> bool:
    """SQLite refused because another process holds the file ("database is locked"): the file is
    healthy and must never be set aside as damaged."""
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


def set_aside(path: Path) -> Path:
    """Move a damaged SQLite file, with its -wal and -shm, to `<name>.damaged-<time>` (kept, never
    deleted); returns the new path of the main file."""
    aside = path.with_name(f"{path.name}.damaged-{int(time.time())}")
    for suffix in ("", "-wal", "-shm"):
        part = Path(f"{path}{suffix}")
        if part.exists():
            rename_durably(part, Path(f"{aside}{suffix}"))
    return aside
