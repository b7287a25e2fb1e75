"""The case registry: which cases exist, their names, types, languages and status.

A small SQLite file in the data directory. Each case's data lives in `cases/<id>/`; the
registry only indexes them, so deleting a case directory and its registry row removes it.
Opening it makes the data directory and `cases/` private (0700): they hold privileged text.

A case is named by its id or its name, so a name must never read as an id: names that look like
one are refused, and a destructive command given a reference two cases answer to (one's name,
another's id) refuses to guess.
"""

from __future__ import annotations

import difflib
import re
import shutil
import sqlite3
import time
import unicodedata
import uuid
from dataclasses import dataclass
from pathlib import Path

from casetrack.atomic_files import rename_durably
from casetrack.domain.cases import CASE_TYPES, LANGUAGES, CaseStatus
from casetrack.domain.views import CaseJson
from casetrack.errors import CaseExistsError, CaseNotFoundError, CaseTrackError, Fix, reopen_fix
from casetrack.privacy_fs import private_dir, private_file
from casetrack.store.registry_rebuild import adopt_folders, folder_gone, name_key, open_checked
from casetrack.store.sqlite_util import migrate

_LIST_CASES = Fix("List cases", "casetrack case list", "list_cases")
MAX_NAME_LENGTH = 200
_ID_LENGTH = 12  # uuid4().hex[:12]
_LOOKS_LIKE_ID = re.compile(rf"[0-9a-f]{{{_ID_LENGTH}}}")
_ID_PREFIX = re.compile(rf"[0-9a-f]{{6,{_ID_LENGTH}}}")
# Invisible characters that reorder or hide text: a name must read on screen as it is stored.
_BIDI = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class AmbiguousCaseError(CaseTrackError):
    """A reference two cases answer to (one's name, another's id), given to a destructive command."""


_MIGRATIONS = [
    """
    CREATE TABLE cases (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        case_type TEXT NOT NULL,
        language TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    )
    """,
]


@dataclass(frozen=True)
class CaseRecord:
    id: str
    name: str
    case_type: str
    language: str
    status: CaseStatus
    created_at: float
    updated_at: float

    def require_writable(self) -> None:
        """Raise unless the case takes new documents (closed and archived cases are read-only)."""
        if self.status != CaseStatus.ACTIVE:
            raise CaseTrackError(
                f"Case '{self.name}' is {self.status.value} (read-only).", fix=reopen_fix(self.name)
            )

    def to_json(self) -> CaseJson:
        return {
            "id": self.id,
            "name": self.name,
            "type": self.case_type,
            "language": self.language,
            "status": self.status.value,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


_name_key = name_key


def valid_case_name(name: str) -> str:
    """`name` with its whitespace collapsed, or a CaseTrackError saying what is wrong with it (empty,
    over MAX_NAME_LENGTH characters, control or invisible characters, shaped like a case id)."""
    name = " ".join(name.split())
    if not name:
        raise CaseTrackError(
            "A case needs a name.",
            fix=Fix(
                "Example", 'casetrack case create "Smith v. Jones"', "create_case", {"name": "Smith v. Jones"}
            ),
        )
    if len(name) > MAX_NAME_LENGTH:
        raise CaseTrackError(
            f"A case name can have at most {MAX_NAME_LENGTH} characters; this one has {len(name)}.",
            "Use a shorter name (the parties and the docket number are enough).",
        )
    if any(unicodedata.category(c) == "Cc" or c in _BIDI for c in name):
        raise CaseTrackError(
            "A case name cannot contain control or invisible direction characters.",
            "Type the name again with letters, digits and punctuation only.",
        )
    if _LOOKS_LIKE_ID.fullmatch(name.casefold()):
        raise CaseTrackError(
            f"'{name}' looks like a case id ({_ID_LENGTH} hexadecimal characters): as a name, commands given it "
            "could act on the wrong case.",
            f'Add a word to it, e.g. "Case {name}".',
        )
    return name


def _ambiguous(key: str, records: list[CaseRecord], names: set[str]) -> AmbiguousCaseError:
    # Each case by a reference only it answers to: its id, or its name when its id is the reference
    # given (or another case's name).
    refs = [f'"{r.name}"' if r.id == key.lower() or r.id in names else r.id for r in records]
    both = " and ".join(f"'{r.name}' (id {r.id})" for r in records)
    which = " or ".join(f"{ref} for '{r.name}'" for ref, r in zip(refs, records, strict=True))
    return AmbiguousCaseError(
        f"'{key}' could mean two cases: {both}. Nothing was changed.",
        f"Repeat with a reference only one case answers to: {which}.",
    )


class CaseRegistry:
    def __init__(self, registry_path: Path, cases_dir: Path) -> None:
        self.cases_dir = cases_dir
        existed = registry_path.exists()
        # The data directory holds every case's text: 0700 whether CaseTrack just created it or a
        # version before this one left it 0755 (then the log says so).
        private_dir(registry_path.parent, note="CaseTrack data folder" if existed else None)
        private_dir(cases_dir)
        # A damaged registry is set aside and rebuilt, and case folders it does not list are
        # added back (store/registry_rebuild.py): the registry never hides a case that exists.
        self._conn, damaged = open_checked(registry_path, lambda conn: migrate(conn, _MIGRATIONS))
        self.rebuilt: list[str] = [damaged] if damaged else []
        self.rebuilt += adopt_folders(self._conn, cases_dir)
        for path in (registry_path, Path(f"{registry_path}-wal"), Path(f"{registry_path}-shm")):
            private_file(path)

    def close(self) -> None:
        self._conn.close()

    def case_dir(self, case_id: str) -> Path:
        return self.cases_dir / case_id

    def create(self, name: str, case_type: str = "other", language: str = "en") -> CaseRecord:
        name = valid_case_name(name)
        if case_type not in CASE_TYPES:
            raise CaseTrackError(f"Unknown case type '{case_type}'.", f"Use one of: {', '.join(CASE_TYPES)}.")
        if language not in LANGUAGES:
            raise CaseTrackError(f"Unknown language '{language}'.", f"Use one of: {', '.join(LANGUAGES)}.")
        now = time.time()
        record = CaseRecord(uuid.uuid4().hex[:12], name, case_type, language, CaseStatus.ACTIVE, now, now)
        # The directory first: a registry row never points at a missing directory, while an
        # orphan directory (crash between the two steps) is harmless and ignored.
        self.case_dir(record.id).mkdir(mode=0o700, parents=True, exist_ok=False)
        try:
            self._conn.execute(
                "INSERT INTO cases VALUES (?,?,?,?,?,?,?,?)",
                (record.id, name, _name_key(name), case_type, language, record.status.value, now, now),
            )
        except sqlite3.IntegrityError as e:
            shutil.rmtree(self.case_dir(record.id), ignore_errors=True)
            raise CaseExistsError(
                f"A case named '{name}' already exists.",
                fix=Fix(
                    "Pick another name, or look at the existing case",
                    f'casetrack case info "{name}"',
                    "get_case_info",
                    {"case_name": name},
                ),
            ) from e
        return record

    def list(self, include_archived: bool = True) -> list[CaseRecord]:
        self._prune_missing()
        rows = self._conn.execute("SELECT * FROM cases ORDER BY updated_at DESC").fetchall()
        records = [self._record(r) for r in rows]
        if not include_archived:
            records = [r for r in records if r.status != CaseStatus.ARCHIVED]
        return records

    def _prune_missing(self) -> None:
        """Deleting a case's directory by hand removes the case: forget rows whose folder is
        certainly gone (never one that cannot be read right now), and add back case folders the
        registry does not list (a case folder restored from a backup)."""
        for row in self._conn.execute("SELECT id FROM cases").fetchall():
            if folder_gone(self.cases_dir, row["id"]):
                self._conn.execute("DELETE FROM cases WHERE id = ?", (row["id"],))
        self.rebuilt += adopt_folders(self._conn, self.cases_dir)

    def get(self, name_or_id: str, *, destructive: bool = False) -> CaseRecord:
        """Find a case by id, name (case-insensitive) or id prefix (>= 6 characters). An exact id
        wins over a name, a name over a prefix. With `destructive` (deleting a case) only the whole
        id or the name is taken (an id prefix is refused, naming the case it would have been), and
        a reference two cases answer to is refused with both named, instead of picking one."""
        self._prune_missing()
        key = name_or_id.strip()
        by_id = self._conn.execute("SELECT * FROM cases WHERE id = ?", (key.lower(),)).fetchone()
        by_name = self._conn.execute("SELECT * FROM cases WHERE name_key = ?", (_name_key(key),)).fetchone()
        by_prefix = None
        if by_id is None and _ID_PREFIX.fullmatch(key.lower()):
            rows = self._conn.execute("SELECT * FROM cases WHERE id LIKE ?", (key.lower() + "%",)).fetchall()
            by_prefix = rows[0] if len(rows) == 1 else None
        if destructive and by_id is None and by_name is None:
            raise self._not_exact(key, by_prefix)
        matches = {row["id"]: row for row in (by_id, by_name, by_prefix) if row is not None}
        if destructive and len(matches) > 1:
            names = {_name_key(r.name) for r in self.list()}
            raise _ambiguous(key, [self._record(row) for row in matches.values()], names)
        row = next((r for r in (by_id, by_name, by_prefix) if r is not None), None)
        if row is None:
            raise self._not_found(key)
        return self._record(row)

    def _not_exact(self, key: str, by_prefix: sqlite3.Row | None) -> CaseNotFoundError:
        """A deletion given a reference that is not a case's whole name or id: nothing is guessed,
        the near case is named (a suggestion, never acted on)."""
        if by_prefix is None:
            found = self._not_found(key)
            return CaseNotFoundError(f"{found.message} Nothing was deleted.", fix=found.fix)
        near = self._record(by_prefix)
        return CaseNotFoundError(
            f"No case is named '{key}' and no case has that id; nothing was deleted. Did you mean "
            f"'{near.name}' (id {near.id})? A deletion needs the case's whole name or id.",
            fix=_LIST_CASES,
        )

    def _not_found(self, key: str) -> CaseNotFoundError:
        names = [r.name for r in self.list()]
        by_key = {_name_key(n): n for n in names}
        close = difflib.get_close_matches(_name_key(key), list(by_key), n=3, cutoff=0.5)
        close += [n for n in by_key if _name_key(key) in n and n not in close]
        if close:
            suggestions = ", ".join(f"'{by_key[c]}'" for c in close[:3])
            return CaseNotFoundError(f"No case named '{key}'. Did you mean {suggestions}?", fix=_LIST_CASES)
        if not names:
            return CaseNotFoundError(
                f"No case named '{key}': there are no cases yet.",
                fix=Fix("Create one", f'casetrack case create "{key}"', "create_case", {"name": key}),
            )
        return CaseNotFoundError(f"No case named '{key}'.", fix=_LIST_CASES)

    def touch(self, case_id: str) -> None:
        self._conn.execute("UPDATE cases SET updated_at = ? WHERE id = ?", (time.time(), case_id))

    def set_status(self, case_id: str, status: CaseStatus) -> None:
        self._conn.execute(
            "UPDATE cases SET status = ?, updated_at = ? WHERE id = ?", (status.value, time.time(), case_id)
        )

    def delete(self, case_id: str) -> None:
        """Rename the folder out of the way, remove the registry row, then the folder: a folder
        left by a crash is named `.deleted-<id>`, which is never adopted back as a case."""
        folder = self.case_dir(case_id)
        doomed = self.cases_dir / f".deleted-{case_id}"
        if folder.is_dir():
            shutil.rmtree(doomed, ignore_errors=True)
            rename_durably(folder, doomed)
        self._conn.execute("DELETE FROM cases WHERE id = ?", (case_id,))
        shutil.rmtree(doomed, ignore_errors=True)

    @staticmethod
    def _record(row: sqlite3.Row) -> CaseRecord:
        return CaseRecord(
            id=row["id"],
            name=row["name"],
            case_type=row["case_type"],
            language=row["language"],
            status=CaseStatus(row["status"]),
            created_at=row["created_at"],
            updated_at=row["updated_at"],
        )
