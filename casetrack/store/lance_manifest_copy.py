"""A private copy of each LanceDB table's newest manifest, so no single lost file loses a case.

A manifest is LanceDB's only list of a version's data files. After a `documents delete` a table
keeps exactly one version (store/purge.py drops the others so deleted text leaves the disk), so
a zeroed manifest, a deleted `_versions/` folder or a deleted table folder left intact data files
that nothing listed: every document of the case unreadable. After each commit the newest manifest
of each table is copied to `cases/<id>/lance_manifests/<table>/<its file name>` (0600, one file
per table, written atomically); when a table has no manifest as new as the copy (deleted), or
its newest one with the copy's version cannot be read (zeroed, cut short), the copy is put back.
A manifest holds the schema and the data files' names, never document text: the copy keeps
nothing a delete must remove, and it names only files of the newest version (older ones, a
deleted document's among them, are gone from the disk after a purge). What the copy's data files
no longer hold (the table folder deleted with them) is salvaged and named by
store/lance_repair.py as for any damaged data file.
"""

from __future__ import annotations

import logging
from pathlib import Path

from casetrack import atomic_files
from casetrack.privacy_fs import private_dir
from casetrack.store.lance_versions import manifest_version

log = logging.getLogger(__name__)

COPIES = "lance_manifests"  # beside lance/, so a deleted lance/ or table folder leaves it
MAGIC = b"LANC"  # every Lance file (a manifest too) ends with it: a zeroed or cut one does not


def copies_dir(lance_root: Path) -> Path:
    return lance_root.parent / COPIES


def _manifests(folder: Path) -> list[Path]:
    try:
        found = [p for p in folder.glob("*.manifest") if p.name.split(".")[0].isdigit()]
    except OSError:
        return []
    return sorted(found, key=manifest_version, reverse=True)


def _whole(path: Path) -> bytes | None:
    """The file's bytes if it looks like a whole Lance file (ends with the magic), else None."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data if len(data) > len(MAGIC) and data.endswith(MAGIC) else None


def kept_copy(lance_root: Path, name: str) -> Path | None:
    """The copy of table `name`'s newest manifest, if one is kept."""
    found = _manifests(copies_dir(lance_root) / name)
    return found[0] if found else None


def keep_copy(lance_root: Path, name: str) -> bool:
    """Copy table `name`'s newest manifest beside the dataset (after a commit; the caller holds
    the writer lock). Returns whether the copy changed."""
    manifests = _manifests(lance_root / f"{name}.lance" / "_versions")
    if not manifests:
        return False
    newest = manifests[0]
    data = _whole(newest)
    if data is None:  # a damaged newest manifest is never copied over a good copy
        return False
    folder = copies_dir(lance_root) / name
    target = folder / newest.name
    if _whole(target) == data:
        return False
    private_dir(folder.parent)
    private_dir(folder)
    atomic_files.write_bytes(target, data)
    for old in _manifests(folder):
        if old != target:
            old.unlink(missing_ok=True)
    return True


def put_back(lance_root: Path, name: str, newest_damaged: bool) -> str | None:
    """Put the kept copy of table `name`'s newest manifest back into its `_versions/` when the
    table has no manifest of that version or a newer one (a deleted manifest, `_versions/` or
    table folder), or, with `newest_damaged`, when the one of that version differs from the copy
    (zeroed, cut short: set aside as `.damaged`). Returns what was done, or None."""
    copy = kept_copy(lance_root, name)
    data = _whole(copy) if copy is not None else None
    if copy is None or data is None:
        return None
    version = manifest_version(copy)
    versions = lance_root / f"{name}.lance" / "_versions"
    present = _manifests(versions)
    target = versions / copy.name
    if present and manifest_version(present[0]) > version:
        return None
    if present and manifest_version(present[0]) == version:
        if not newest_damaged or _whole(target) == data:
            return None
        atomic_files.rename_durably(target, target.with_name(target.name + ".damaged"))
        why = "could not be read"
    else:
        why = "was missing" if (lance_root / f"{name}.lance").is_dir() else "was missing (with its folder)"
    versions.mkdir(parents=True, exist_ok=True)
    atomic_files.write_bytes(target, data)
    (versions / "latest_version_hint.json").unlink(missing_ok=True)
    line = (
        f"LanceDB table {name}: its newest manifest (version {version}) {why}; put back the case's copy of it"
    )
    log.warning("%s", line)
    return line
