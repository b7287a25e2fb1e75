"""Backups of the config files setup edits (~/.claude.json, claude_desktop_config.json, .mcp.json).

They go to `DATA_DIR/backups/` (a private 0700 folder; each backup 0600: ~/.claude.json holds the
user's account details), not beside the file: a home folder should not fill up with
`.claude.json.*.bak`. Each backup is named `<file name>.<8 hex of its full path>.<time>.bak`, so
two `.mcp.json` of two projects keep apart, and only the newest `KEEP` of each file are kept.
Backups an older CaseTrack left beside the file are moved in with the first new one.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import time
from pathlib import Path

from casetrack.errors import CaseTrackError
from casetrack.privacy_fs import private_dir

KEEP = 5
BACKUPS_DIR = "backups"
# What setup wrote beside the file before backups moved: `<name>.<YYYYmmdd-HHMMSS>[-n].bak`.
_LEGACY = r"\.\d{8}-\d{6}(?:-\d+)?\.bak"


def backup_dir_of(data_dir: Path) -> Path:
    """Where setup keeps backups of the files it edits: DATA_DIR/backups."""
    return data_dir / BACKUPS_DIR


def _prefix(path: Path) -> str:
    digest = hashlib.sha256(str(path.absolute()).encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{path.name.lstrip('.') or 'config'}.{digest}."


def backups_of(path: Path, backup_dir: Path) -> list[Path]:
    """The backups of `path` in `backup_dir`, oldest first."""
    if not backup_dir.is_dir():
        return []
    prefix = _prefix(path)
    return sorted(p for p in backup_dir.iterdir() if p.name.startswith(prefix) and p.name.endswith(".bak"))


def _copy_private(source: Path, backup_dir: Path, prefix: str) -> Path:
    """Copy `source` to a new 0600 file named by the time (nanoseconds: sortable, never reused)."""
    stamp = time.time_ns()
    while True:
        seconds, ns = divmod(stamp, 1_000_000_000)
        name = f"{prefix}{time.strftime('%Y%m%d-%H%M%S', time.localtime(seconds))}-{ns:09d}.bak"
        target = backup_dir / name
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        except FileExistsError:
            stamp += 1
            continue
        with os.fdopen(fd, "wb") as out, source.open("rb") as src:
            shutil.copyfileobj(src, out)
            out.flush()
            os.fsync(out.fileno())
        return target


def backup_file(path: Path, backup_dir: Path, keep: int = KEEP) -> Path | None:
    """Copy `path` into `backup_dir` and keep its newest `keep` backups; None if `path` is absent."""
    if not path.exists():
        return None
    try:
        private_dir(backup_dir)
        backup = _copy_private(path, backup_dir, _prefix(path))
    except OSError as e:
        raise CaseTrackError(
            f"Cannot back up {path} into {backup_dir}: {e.strerror or e}; nothing was changed.",
            f"Make {backup_dir} writable (or choose another data folder with --data-dir), then run this again.",
        ) from e
    _adopt_legacy(path, backup_dir)
    prune(path, backup_dir, keep)
    return backup


def _adopt_legacy(path: Path, backup_dir: Path) -> None:
    """Move backups an older CaseTrack wrote beside `path` into `backup_dir` (their names kept
    after the prefix, so they sort before the new ones)."""
    pattern = re.compile(re.escape(path.name) + _LEGACY)
    try:
        siblings = [p for p in path.parent.iterdir() if pattern.fullmatch(p.name) and p.is_file()]
    except OSError:
        return
    prefix = _prefix(path)
    for old in siblings:
        stamp = old.name[len(path.name) + 1 : -len(".bak")]
        target = backup_dir / f"{prefix}{stamp}.bak"
        try:
            if not target.exists():
                shutil.move(str(old), target)
                os.chmod(target, 0o600)
        except OSError:
            continue  # a backup we cannot move stays where it was; it is only a copy


def prune(path: Path, backup_dir: Path, keep: int = KEEP) -> list[Path]:
    """Delete all but the newest `keep` backups of `path`; returns the ones deleted."""
    old = backups_of(path, backup_dir)[:-keep] if keep > 0 else backups_of(path, backup_dir)
    for backup in old:
        backup.unlink(missing_ok=True)
    return old
