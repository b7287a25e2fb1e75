"""Temporary files stay inside the data folder: `DATA_DIR/tmp/<pid>/` (0700), one per process.

Tesseract's page images and TSV (pytesseract's `tess_*` files), LanceDB's temporary folders
(`.tmp*`, made by its Rust code during writes) and Python's own temporary files went to `/tmp`,
readable by the machine's administrator and backups, and a crash during OCR left the scanned page
there for good. While a `CaseTrack` lives, TMPDIR (read by LanceDB, tesseract and the parse child
at their first temporary file) and `tempfile.tempdir` point at this process's private folder; the
folders of processes that are gone are removed when the next one starts, and this process's own
is emptied after each job and removed when it ends.

`system_temp()` is the temporary folder as it was before: the daemon's short socket path
(daemon/endpoint.py) is computed from it, so every process agrees on it whatever it set."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from pathlib import Path

from casetrack.atomic_files import pid_alive
from casetrack.privacy_fs import private_dir

log = logging.getLogger(__name__)

TEMP_FOLDER = "tmp"
# TMPDIR and tempfile.tempdir before the first PrivateTemp started.
_ORIGINAL: tuple[str | None, str | None] | None = None


def system_temp() -> str:
    """The temporary folder the environment named before CaseTrack moved it into the data folder
    (tempfile's choice, without its test of writing a file there)."""
    if _ORIGINAL is None:
        return tempfile.gettempdir()
    named = _ORIGINAL[1] or _ORIGINAL[0] or os.environ.get("TEMP") or os.environ.get("TMP")
    return named or ("/tmp" if os.name == "posix" else tempfile.gettempdir())


class PrivateTemp:
    """This process's temporary folder inside `data_dir` (see the module's docstring)."""

    def __init__(self, data_dir: Path) -> None:
        self.root = data_dir / TEMP_FOLDER
        self.path = self.root / str(os.getpid())

    def start(self) -> None:
        """Remove the folders of processes that are gone, create ours and point TMPDIR at it."""
        global _ORIGINAL
        private_dir(self.root)
        self.sweep()
        private_dir(self.path)
        if _ORIGINAL is None:
            _ORIGINAL = (os.environ.get("TMPDIR"), tempfile.tempdir)
        os.environ["TMPDIR"] = str(self.path)
        tempfile.tempdir = str(self.path)

    def sweep(self) -> list[str]:
        """The folders of processes no longer running, removed (a crash left them)."""
        removed: list[str] = []
        try:
            entries = list(self.root.iterdir())
        except OSError:
            return removed
        for entry in entries:
            if entry.name.isdigit() and int(entry.name) != os.getpid() and not pid_alive(int(entry.name)):
                shutil.rmtree(entry, ignore_errors=True)
                removed.append(entry.name)
        if removed:
            log.info("removed %d temporary folder(s) left by stopped processes", len(removed))
        return removed

    def clean(self, idle: float = 60.0) -> None:
        """Empty this process's folder of what has not changed for `idle` seconds (after a job:
        what a killed tesseract left; a search running meanwhile keeps its newer files)."""
        try:
            entries = list(self.path.iterdir())
        except OSError:
            return
        now = time.time()
        for entry in entries:
            try:
                if now - entry.lstat().st_mtime < idle:
                    continue
            except OSError:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)

    def stop(self) -> None:
        """Put TMPDIR back as it was (if it is still ours) and remove this process's folder."""
        global _ORIGINAL
        if os.environ.get("TMPDIR") == str(self.path) and _ORIGINAL is not None:
            before, tempdir = _ORIGINAL
            if before is None:
                os.environ.pop("TMPDIR", None)
            else:
                os.environ["TMPDIR"] = before
            tempfile.tempdir = tempdir
            _ORIGINAL = None
        shutil.rmtree(self.path, ignore_errors=True)
