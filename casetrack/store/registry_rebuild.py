"""The registry is an index of `cases/`, so losing it never loses a case.

`registry.sqlite` only lists the case folders; each `cases/<id>/case.json` holds its own record.
  * a registry SQLite cannot read (zeroed, truncated, not a database, failing its quick check)
    is moved aside (`registry.sqlite.damaged-<time>`, never deleted) and a new one started;
  * every case folder that holds a case (case.json, journal.sqlite or lance/) and that the
    registry does not list is adopted back from its case.json — whatever the file lacks gets a
    default, the folder name is the id — whether the registry was just rebuilt, deleted, or
    restored from an older backup;
  * what was done is logged (stderr) and kept on the registry for `casetrack status`.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from casetrack.domain.cases import CASE_TYPES, LANGUAGES, CaseStatus
from casetrack.logsafe import safe_for_log
from casetrack.store.sqlite_util import connect, is_busy, set_aside

log = logging.getLogger(__name__)

CASE_ID = re.compile(r"[0-9a-f]{12}")  # a case folder's name: uuid4().hex[:12]
# What a folder must hold to be a case (a folder left by a create that crashed holds nothing).
_CASE_MARKS = ("case.json", "journal.sqlite", "lance")


def name_key(name: str) -> str:
    """The form names are compared in (case and spacing do not matter)."""
    return " ".join(name.casefold().split())


def open_checked(
    path: Path, migrate: Callable[[sqlite3.Connection], None]
) -> tuple[sqlite3.Connection, str | None]:
    """The registry's connection, and why the file on disk had to be set aside (None when it
    opened and passed SQLite's quick check)."""
    conn: sqlite3.Connection | None = None
    try:
        conn = connect(path)
        migrate(conn)
        verdict = str(conn.execute("PRAGMA quick_check").fetchone()[0])
        if verdict != "ok":
            raise sqlite3.DatabaseError(verdict)
        conn.execute("SELECT count(*) FROM cases").fetchone()
        return conn, None
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        if is_busy(exc):
            raise  # another process is writing it: healthy, never set aside
        aside = set_aside(path)
        why = (
            f"the case registry could not be read ({' '.join(str(exc).split())[:80]}); it was moved to "
            f"{aside.name} and rebuilt from the case folders"
        )
        log.warning("%s", why)
        conn = connect(path)
        migrate(conn)
        return conn, why


def case_folders(cases_dir: Path) -> dict[str, Path]:
    """id -> folder of every folder of `cases_dir` that holds a case."""
    found = {}
    try:
        entries = list(cases_dir.iterdir())
    except OSError:
        return {}
    for entry in entries:
        if (
            CASE_ID.fullmatch(entry.name)
            and entry.is_dir()
            and any((entry / m).exists() for m in _CASE_MARKS)
        ):
            found[entry.name] = entry
    return found


def record_from_folder(folder: Path) -> dict[str, Any]:
    """The registry row of a case folder, from its case.json (defaults for what it lacks)."""
    try:
        info = json.loads((folder / "case.json").read_text(encoding="utf-8"))
        info = info if isinstance(info, dict) else {}
    except (OSError, ValueError):
        info = {}
    try:
        made = folder.stat().st_mtime
    except OSError:
        made = time.time()
    name = " ".join(str(info.get("name") or "").split())[:200] or f"Recovered case {folder.name}"
    status = info.get("status")
    return {
        "id": folder.name,
        "name": name,
        "case_type": info.get("type") if info.get("type") in CASE_TYPES else "other",
        "language": info.get("language") if info.get("language") in LANGUAGES else "en",
        "status": status if status in {s.value for s in CaseStatus} else CaseStatus.ACTIVE.value,
        "created_at": float(info.get("created_at") or made),
        "updated_at": float(info.get("updated_at") or made),
    }


def adopt_folders(conn: sqlite3.Connection, cases_dir: Path) -> list[str]:
    """Add every case folder the registry does not list; returns a line per case adopted."""
    known = {str(row[0]) for row in conn.execute("SELECT id FROM cases")}
    lines = []
    for case_id, folder in sorted(case_folders(cases_dir).items()):
        if case_id in known:
            continue
        row = record_from_folder(folder)
        taken = conn.execute("SELECT 1 FROM cases WHERE name_key = ?", (name_key(row["name"]),)).fetchone()
        if taken:
            row["name"] = f"{row['name']} (recovered {case_id})"
        conn.execute(
            "INSERT OR IGNORE INTO cases VALUES (?,?,?,?,?,?,?,?)",
            (
                case_id,
                row["name"],
                name_key(row["name"]),
                row["case_type"],
                row["language"],
                row["status"],
                row["created_at"],
                row["updated_at"],
            ),
        )
        lines.append(
            f"case '{row['name']}' (id {case_id}) was missing from the registry: added back from its folder"
        )
        log.warning("%s", safe_for_log(lines[-1]))
    return lines


def folder_gone(cases_dir: Path, case_id: str) -> bool:
    """True only when the case folder is certainly not there: `cases/` can be listed and the
    folder does not exist (a folder that cannot be read right now — permissions, a disk being
    mounted — keeps its registry row)."""
    try:
        (cases_dir / case_id).lstat()
        return False
    except FileNotFoundError:
        pass
    except OSError:
        return False
    try:
        next(iter(cases_dir.iterdir()), None)
    except OSError:
        return False
    return True
