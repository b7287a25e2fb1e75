"""A case folder on its way into a data directory (`case import`): the private temp folder it is
built in, the documents pointed at their imported originals, the registry row.

The temp folder lives in `cases/` itself (`.import-<pid>-<random>`, never read as a case: not an
id), so the final rename is atomic on the same file system; one a killed import left is removed
by the next import. The registry row is written from the folder's own case.json, as
`registry_rebuild.adopt_folders` would, but refuses a name that is taken instead of renaming.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import shutil
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from casetrack.atomic_files import pid_alive
from casetrack.logsafe import safe_for_log
from casetrack.store.case_archive import JOURNAL
from casetrack.store.registry_rebuild import name_key, record_from_folder
from casetrack.store.sqlite_util import connect

log = logging.getLogger(__name__)

TEMP_PREFIX = ".import-"
_STALE_TEMP_S = 24 * 3600.0  # a temp folder this old is a leftover even if its pid was reused


@contextmanager
def staging(cases_dir: Path) -> Iterator[Path]:
    """A private (0700) temp folder inside `cases/`, removed unless it was renamed into place."""
    tmp = cases_dir / f"{TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    tmp.mkdir(mode=0o700, parents=True)
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def clean_leftovers(cases_dir: Path) -> list[Path]:
    """Remove temp folders an import killed midway left behind; returns them."""
    try:
        entries = [p for p in cases_dir.iterdir() if p.name.startswith(TEMP_PREFIX) and p.is_dir()]
    except OSError:
        return []
    removed = []
    for path in entries:
        pid = path.name.removeprefix(TEMP_PREFIX).split("-", 1)[0]
        try:
            old = time.time() - path.stat().st_mtime > _STALE_TEMP_S
        except OSError:
            continue
        if old or not pid.isdigit() or not pid_alive(int(pid)):
            log.info("removing %s, left by an import that did not finish", safe_for_log(path))
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def rebased_sources(case_dir: Path, old: Path, new: Path) -> dict[str, str]:
    """doc_id -> new path of each document whose original lies under `old` (a case folder's own
    `sources/`, copied to `new`)."""
    conn = sqlite3.connect(str(case_dir / JOURNAL))
    try:
        rows = conn.execute("SELECT doc_id, source_path FROM documents").fetchall()
    finally:
        conn.close()
    return {
        str(doc_id): str(new / Path(path).relative_to(old))
        for doc_id, path in rows
        if path and Path(path).is_relative_to(old)
    }


def set_source_paths(case_dir: Path, paths: dict[str, str]) -> None:
    """Point documents (doc_id -> path) at their imported originals, in the journal (column and
    metadata) and in LanceDB's document rows (one commit), which a rebuilt journal reads."""
    if not paths:
        return
    conn = connect(case_dir / JOURNAL)
    try:
        conn.execute("BEGIN IMMEDIATE")
        for doc_id, path in paths.items():
            row = conn.execute("SELECT meta_json FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
            if row is None:
                continue
            meta = json.loads(row["meta_json"])
            meta["source_path"] = path
            conn.execute(
                "UPDATE documents SET source_path = ?, meta_json = ? WHERE doc_id = ?",
                (path, json.dumps(meta), doc_id),
            )
        conn.execute("COMMIT")
    finally:
        conn.close()
    _set_lance_source_paths(case_dir / "lance", paths)


def _set_lance_source_paths(lance_dir: Path, paths: dict[str, str]) -> None:
    import pyarrow as pa
    import pyarrow.compute as pc

    from casetrack.store.lance_tables import DOCUMENTS, LanceTables

    table = LanceTables(lance_dir).table(DOCUMENTS)
    if table is None:
        return
    rows = table.to_arrow()
    rows = rows.filter(pc.is_in(rows.column("doc_id"), pa.array(list(paths), pa.string())))
    if rows.num_rows == 0:
        return
    new = pa.array([paths[d] for d in rows.column("doc_id").to_pylist()], pa.string())
    index = rows.schema.get_field_index("source_path")
    rows = rows.set_column(index, rows.schema.field(index), new)
    table.merge_insert("doc_id").when_matched_update_all().execute(rows)


def register_folder(registry_path: Path, folder: Path) -> None:
    """Add the registry row of the case in `folder` (named for its id) from its case.json.
    Raises sqlite3.IntegrityError when another case took its name meanwhile."""
    row = record_from_folder(folder)
    conn = connect(registry_path)
    try:
        if conn.execute("SELECT 1 FROM cases WHERE id = ?", (row["id"],)).fetchone():
            return  # adopted already by another process listing the cases (registry_rebuild.py)
        conn.execute(
            "INSERT INTO cases (id, name, name_key, case_type, language, status, created_at, updated_at) "
            "VALUES (?,?,?,?,?,?,?,?)",
            (
                row["id"],
                row["name"],
                name_key(row["name"]),
                row["case_type"],
                row["language"],
                row["status"],
                row["created_at"],
                row["updated_at"],
            ),
        )
    finally:
        conn.close()
