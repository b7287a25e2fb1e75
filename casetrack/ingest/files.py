"""Finding files to ingest and fingerprinting them.

A folder walk stays inside the folder: a symbolic link whose target lies outside it (a
`passwd.txt -> /etc/passwd` planted in a client's upload) is skipped, and so are link loops,
broken links and sub-folders that cannot be read; each is reported with its reason while the rest
of the folder goes on. Links to files inside the folder are ingested like the files themselves.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from casetrack.errors import CaseTrackError
from casetrack.logsafe import safe_for_log
from casetrack.parse.detect import SUPPORTED_EXTENSIONS

log = logging.getLogger(__name__)

# Document formats CaseTrack cannot read yet: a folder walk still reports them, one clear
# line each ("save it as .docx"), instead of passing over a client's files in silence.
REPORTED_EXTENSIONS = frozenset({".doc", ".wpd", ".odt", ".pages", ".xls", ".xlsx", ".ppt", ".pptx"})

_OUTSIDE = (
    "a link to a {what} outside the folder being ingested: not ingested (links may only point inside it).",
    "To ingest that {what}, ingest it directly, from its own place.",
)
_LOOP = ("a symbolic link loop (the link leads back to itself): skipped.", "Fix or remove the link.")
_BROKEN = ("a link to a file that no longer exists: skipped.", "Fix or remove the link.")
_UNREADABLE_DIR = (
    "this sub-folder cannot be read ({why}): its files were not ingested.",
    "Check the folder's permissions, then ingest the folder again.",
)
_UNREADABLE = (
    "this file cannot be read ({why}): skipped.",
    "Check the file's permissions, then ingest it again.",
)
_NOT_A_FILE = ("not a regular file (a pipe, socket or device): skipped.", "Only documents can be ingested.")


@dataclass(frozen=True)
class SkippedEntry:
    """An entry of a folder that the walk did not hand to ingest, and why."""

    path: Path  # where it is in the folder (a link's own path, not its target)
    name: str  # its path relative to the folder, as the report shows it
    code: str  # outside_folder | link_loop | broken_link | unreadable | not_a_file
    reason: str
    hint: str

    def result_fields(self) -> dict[str, str]:
        """The entry as a row of the ingest report: `FileResult(**entry.result_fields())`. Status
        "error" with its own `error_code`, as an unsupported file is reported, so every surface
        (the CLI's lines and --json, the job record, get_job) lists it without a new status."""
        return {
            "path": str(self.path),
            "name": self.name,
            "status": "error",
            "error": self.reason,
            "error_code": self.code,
            "hint": self.hint,
        }


@dataclass
class FolderScan:
    """What a folder walk found: the files to ingest (stable order) and the entries it skipped."""

    files: list[Path] = field(default_factory=list)
    skipped: list[SkippedEntry] = field(default_factory=list)


def sha256_file(path: Path, block: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(block):
            digest.update(chunk)
    return digest.hexdigest()


def discover_files(folder: Path, recursive: bool) -> list[Path]:
    """Supported files in a folder, in a stable order; hidden and Office lock files skipped, and
    the entries `scan_folder` skips (links out of the folder, loops) left out and logged."""
    return scan_folder(folder, recursive).files


def scan_folder(folder: Path, recursive: bool) -> FolderScan:
    """Walk `folder` (and its sub-folders when `recursive`, depth first, each folder's files before
    its sub-folders, names sorted). Symbolic links to folders are not walked (their target is walked
    as itself when it is inside); links are followed only to files inside the folder."""
    root = _root(folder)
    scan = FolderScan()
    seen: set[tuple[int, int]] = set()
    stack = [folder]
    while stack:
        here = stack.pop()
        try:
            st = here.stat()
            if (st.st_dev, st.st_ino) in seen:  # a bind mount looping back: walked already
                continue
            seen.add((st.st_dev, st.st_ino))
            with os.scandir(here) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            if here == folder:
                raise CaseTrackError(
                    f"{folder} cannot be read ({e.strerror or e}).", "Check the folder's permissions."
                ) from e
            _skip(scan, folder, here, "unreadable", _UNREADABLE_DIR, why=e.strerror or str(e))
            continue
        subfolders = [Path(e.path) for e in entries if _visit(e, root, folder, recursive, scan)]
        stack += reversed(subfolders)
    return scan


def _root(folder: Path) -> Path:
    fix = "Pass the folder that holds the case's documents (check its spelling: ls -d FOLDER)."
    try:
        root = folder.resolve(strict=True)
    except FileNotFoundError as e:
        raise CaseTrackError(f"The folder {folder} does not exist.", fix) from e
    except (OSError, RuntimeError) as e:  # a link loop (RuntimeError in Python 3.11), no permission
        why = e.strerror if isinstance(e, OSError) and e.strerror else "a symbolic link loop"
        raise CaseTrackError(f"The folder {folder} cannot be opened ({why}).", fix) from e
    if not root.is_dir():
        raise CaseTrackError(
            f"{folder} is a file, not a folder.", "Ingest a file with: casetrack ingest FILE"
        )
    return root


def _visit(entry: os.DirEntry[str], root: Path, folder: Path, recursive: bool, scan: FolderScan) -> bool:
    """Take one entry: a file to ingest goes to `scan.files`, a problem to `scan.skipped`. Returns
    whether it is a sub-folder to walk."""
    name, path = entry.name, Path(entry.path)
    if name.startswith("."):
        return False
    try:
        if entry.is_symlink():
            _visit_link(path, root, folder, recursive, scan)
            return False
        if entry.is_dir(follow_symlinks=False):
            return recursive
        if not _wanted(name):
            return False
        if not entry.is_file(follow_symlinks=False):
            _skip(scan, folder, path, "not_a_file", _NOT_A_FILE)
        elif not os.access(path, os.R_OK):
            _skip(scan, folder, path, "unreadable", _UNREADABLE, why="permission denied")
        else:
            scan.files.append(path)
    except OSError as e:  # vanished or unreadable while we looked at it
        _skip(scan, folder, path, "unreadable", _UNREADABLE, why=e.strerror or str(e))
    return False


def _visit_link(path: Path, root: Path, folder: Path, recursive: bool, scan: FolderScan) -> None:
    try:
        target = path.resolve(strict=True)
    except RuntimeError:  # Python 3.11's symlink loop
        _skip(scan, folder, path, "link_loop", _LOOP)
        return
    except OSError as e:
        if e.errno == errno.ELOOP:
            _skip(scan, folder, path, "link_loop", _LOOP)
        elif _wanted(path.name):
            _skip(scan, folder, path, "broken_link", _BROKEN)
        return
    inside = target.is_relative_to(root)
    if target.is_dir():
        # Not walked: inside, its target is walked as itself; outside, it is reported when the walk
        # would have gone into it.
        if recursive and not inside:
            _skip(scan, folder, path, "outside_folder", _OUTSIDE, what="folder")
        return
    if not _wanted(path.name):
        return
    if not inside:
        _skip(scan, folder, path, "outside_folder", _OUTSIDE, what="file")
    elif not target.is_file():
        _skip(scan, folder, path, "not_a_file", _NOT_A_FILE)
    else:
        scan.files.append(path)


def _skip(
    scan: FolderScan, folder: Path, path: Path, code: str, text: tuple[str, str], **values: str
) -> None:
    reason, hint = (t.format(**values) for t in text)
    name = str(path.relative_to(folder)) if path.is_relative_to(folder) else path.name
    scan.skipped.append(SkippedEntry(path, name, code, reason, hint))
    log.info("folder walk: skipped %s: %s", safe_for_log(path), reason)


def _wanted(name: str) -> bool:
    if name.startswith((".", "~$")):
        return False
    suffix = Path(name).suffix.lower()
    # Apple Mail exports a mailbox as a folder "Inbox.mbox" holding a file named "mbox".
    return suffix in SUPPORTED_EXTENSIONS or suffix in REPORTED_EXTENSIONS or name.lower() == "mbox"
