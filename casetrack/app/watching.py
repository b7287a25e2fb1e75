"""Watching a folder like a consume folder: what `casetrack watch` and the daemon's watch share.

`FolderWatch` remembers one folder between looks: the files' fingerprints (each file version is
hashed once), the folder's signature at the last plan (a look that finds the folder unchanged
and nothing waiting to settle plans nothing), the files still being copied, the files that
failed (not tried again until they change) and the last error (said once). `look` returns the
sync plan (ingest/folder_sync.py) when something may have changed: its `to_ingest()` are the
new and changed files that have settled. What to do with it is the caller's: the CLI applies
it in its own process, the daemon hands the files to its job manager.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from casetrack.app.syncing import WAIT_FOR_WRITER_S, next_record, plan_folder
from casetrack.ingest.files import scan_folder
from casetrack.ingest.folder_sync import (
    DEFAULT_SETTLE_S,
    WATCH_INTERVAL_S,
    FolderFile,
    FolderRecord,
    HashCache,
    SyncPlan,
)

if TYPE_CHECKING:
    from casetrack.app.core import CaseTrack
    from casetrack.ingest.pipeline import FileResult

__all__ = [
    "WATCH_INTERVAL_S",
    "FolderWatch",
    "folder_signature",
    "results_from_json",
    "set_watch",
    "watched_folders",
]

Signature = frozenset[tuple[str, int, int]]


def folder_signature(folder: Path, recursive: bool) -> Signature:
    """(path, size, mtime) of every file the walk lists: the folder changed when this did."""
    out = set()
    for path in scan_folder(folder, recursive).files:
        try:
            st = path.stat()
        except OSError:
            continue
        out.add((str(path), st.st_size, st.st_mtime_ns))
    return frozenset(out)


class FolderWatch:
    """One watched folder and what its watcher remembers between looks."""

    def __init__(
        self,
        folder: Path,
        recursive: bool,
        settle_s: float = DEFAULT_SETTLE_S,
        record: FolderRecord | None = None,
    ) -> None:
        self.folder = folder
        self.recursive = recursive
        self.settle_s = settle_s
        self.record = record or FolderRecord(path="", recursive=recursive, unsupported={}, mailboxes={})
        self.hashes: HashCache = {}
        self.signature: Signature | None = None
        self.waiting: set[str] = set()  # files still being copied at the last look
        self.new_waiting: list[FolderFile] = []  # those the last look found waiting for the first time
        self.error: str | None = None  # the last error said, so a lasting one is said once

    def look(self, app: CaseTrack, case: str) -> SyncPlan | None:
        """Plan the folder against the case when it changed or a file waits to settle; else None.
        Raises CaseTrackError when the folder cannot be read (gone, unplugged) or the case opened."""
        signature = folder_signature(self.folder, self.recursive)
        if signature == self.signature and not self.waiting:
            return None
        plan = plan_folder(app, case, self.folder, self.recursive, self.settle_s, self.hashes, self.record)
        self.new_waiting = [f for f in plan.in_progress if f.path not in self.waiting]
        self.waiting = {f.path for f in plan.in_progress}
        self.signature = signature
        return plan

    def failed(self, message: str) -> bool:
        """A look failed: whether this error is new (say it once; it is tried again at every look)."""
        new = message != self.error
        self.error, self.signature = message, None
        return new

    def recovered(self) -> bool:
        """A look worked: whether an error was said before (say that it is over)."""
        was = self.error is not None
        self.error = None
        return was

    def done(self, plan: SyncPlan, results: Iterable[FileResult]) -> None:
        """The plan's files were ingested: the ones that failed are not tried again until they change."""
        self.record = next_record(plan, results, any_failure=True)


def results_from_json(results: Iterable[dict[str, Any]]) -> list[FileResult]:
    """A job record's per-file results (FileResult.to_json) back as FileResults."""
    from casetrack.ingest.pipeline import FileResult

    known = {f.name for f in fields(FileResult)}
    return [
        FileResult(**{k: v for k, v in r.items() if k in known})
        for r in results
        if isinstance(r, dict) and "path" in r and "name" in r and "status" in r
    ]


def set_watch(app: CaseTrack, case: str, folder: Path, recursive: bool | None) -> list[dict[str, Any]]:
    """Make the daemon watch `folder` for `case` (`recursive` None: stop watching it); returns the
    case's watched folders. A folder to watch must exist and be a folder."""
    from casetrack.errors import CaseTrackError
    from casetrack.privacy_fs import real_path

    record = app.registry.get(case)
    path = str(real_path(folder))
    if recursive is not None and not Path(path).is_dir():
        what = "is not a folder" if Path(path).exists() else "does not exist"
        raise CaseTrackError(
            f"{folder} {what}: the daemon can only watch a folder.",
            f'Create it or pass an existing one: casetrack case set "{record.name}" --watch FOLDER',
        )
    with app.writing(case, wait=WAIT_FOR_WRITER_S) as store:
        watched = store.watched()
        if recursive is None and path not in {f["path"] for f in watched}:
            path = str(folder.absolute())  # a folder gone since: forgotten under the path it was given
            if path not in {f["path"] for f in watched}:
                listed = ", ".join(f["path"] for f in watched) or "none"
                raise CaseTrackError(
                    f"Case '{record.name}' does not watch {folder} (it watches: {listed}).",
                    f'See its settings: casetrack case set "{record.name}"',
                )
        store.set_watched(path, recursive)
        return store.watched()


def watched_folders(app: CaseTrack, case: str) -> list[dict[str, Any]]:
    """The folders the daemon watches for `case` (path, recursive)."""
    from casetrack.store.case_store import watched_in

    return watched_in(app.settings.case_dir(app.registry.get(case).id))
