"""A folder sync as the app applies it (ingest/folder_sync.py plans it): documents whose file is
gone are removed and renamed files followed, one document at a time through the store's
crash-safe operations, under the case's writer lock; the files to ingest go through the usual
ingest (the caller's: the daemon's job or this process); then the case remembers the folder.

A rename changes a document's name and path only (store/case_store.py `rename_document`): chunks
and the keyword index hold neither, search reads the name from the journal. An e-mail renamed
takes its attachments along: their path, and their names "<e-mail> › <file>" with the new name.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from casetrack.ingest.folder_sync import (
    DEFAULT_SETTLE_S,
    Change,
    FolderRecord,
    HashCache,
    SyncPlan,
    folder_record,
    plan_sync,
)
from casetrack.logsafe import safe_for_log

if TYPE_CHECKING:
    from casetrack.app.core import CaseTrack
    from casetrack.ingest.pipeline import FileResult
    from casetrack.store.case_store import CaseStore

log = logging.getLogger(__name__)

WAIT_FOR_WRITER_S = 30.0  # a daemon job finishing its last file


@dataclass
class Applied:
    """What a sync changed before ingest: removed documents (names) and renames (old -> new)."""

    removed: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"removed": self.removed, "renamed": [{"from": a, "to": b} for a, b in self.renamed]}


def remembered_folders(app: CaseTrack, case: str) -> list[FolderRecord]:
    with app.reading(case) as store:
        return [folder_record(f) for f in store.folders()]


def plan_folder(
    app: CaseTrack,
    case: str,
    folder: Path,
    recursive: bool,
    settle_s: float = DEFAULT_SETTLE_S,
    hashes: HashCache | None = None,
    record: FolderRecord | None = None,
) -> SyncPlan:
    """The plan of mirroring `folder` in `case` (with what the case remembers of it, unless `record`)."""
    from casetrack.privacy_fs import real_path

    with app.reading(case) as store:
        if record is None:
            known = [f for f in store.folders() if f["path"] == str(real_path(folder))]
            record = folder_record(known[0]) if known else None
        return plan_sync(folder, recursive, store.documents(), record, settle_s, hashes=hashes)


def apply_moves(
    app: CaseTrack,
    case: str,
    plan: SyncPlan,
    remove: bool = True,
    on_line: Callable[[str], None] | None = None,
    wait: float = WAIT_FOR_WRITER_S,
) -> Applied:
    """Remove (when `remove`) the documents whose file is gone, then follow the renamed files
    (waiting up to `wait` seconds for the case's writer lock: CaseBusyError after)."""
    done = Applied()
    if not (plan.rename or (remove and plan.remove)):
        return done
    with app.writing(case, wait=wait) as store:
        if remove:
            _remove_gone(store, plan, done, on_line or (lambda _line: None))
        _follow_renames(store, plan, done, on_line or (lambda _line: None))
    return done


def _remove_gone(store: CaseStore, plan: SyncPlan, done: Applied, on_line: Callable[[str], None]) -> None:
    """Delete the documents whose file has left the folder (with their attachments)."""
    from casetrack.ingest.attachments import delete_with_attachments

    for removal in plan.remove:
        for doc_id in removal.document_ids:
            if store.journal.get(doc_id) is None:  # a mailbox's message may have gone with another
                continue
            names = delete_with_attachments(store, doc_id)
            done.removed += names
            attached = f" with {len(names) - 1} attached document(s)" if len(names) > 1 else ""
            on_line(f"  DEL  {names[-1]}: file gone from the folder: removed{attached}")


def _follow_renames(store: CaseStore, plan: SyncPlan, done: Applied, on_line: Callable[[str], None]) -> None:
    """Each renamed file's document takes its new name; the documents table compacted after."""
    for change in plan.rename:
        new = follow_rename(store, change)
        if new is not None:
            done.renamed.append((change.document, new))
            on_line(f"  MOVE {change.document} -> {new}: renamed, nothing ingested again")
    if done.renamed:  # each rename is one small commit of the documents table: compact, as ingest does
        for step in store.lance.maintain():
            log.info("case %s: %s", safe_for_log(store.record.name), step)


def follow_rename(store: CaseStore, change: Change) -> str | None:
    """The document takes its file's new path and name (attachments follow); returns the new name."""
    from casetrack.ingest.attachments import linked_children

    entry = store.journal.get(change.document_id)
    if entry is None or entry.sha256 != change.file.sha256:
        return None  # changed since the plan: the next sync sees it
    name = fresh_name(store, Path(change.file.path), entry.doc_id)
    store.rename_document(entry.doc_id, name, change.file.path)
    _follow_children(store, linked_children(store, entry.doc_id).values(), entry.name, name, change.file.path)
    log.info(
        "case %s: %s renamed to %s",
        safe_for_log(store.record.name),
        safe_for_log(entry.name),
        safe_for_log(name),
    )
    return name


def _follow_children(store: CaseStore, doc_ids: Iterable[str], old: str, new: str, path: str) -> None:
    from casetrack.ingest.attachments import linked_children

    for doc_id in doc_ids:
        child = store.journal.get(doc_id)
        if child is None:
            continue
        link = dict(child.meta.get("attachment_of") or {})
        name = new + child.name[len(old) :] if child.name.startswith(old + " › ") else child.name
        store.rename_document(doc_id, name, path, {"attachment_of": {**link, "name": new}})
        _follow_children(store, linked_children(store, doc_id).values(), child.name, name, path)


def fresh_name(store: CaseStore, path: Path, own: str) -> str:
    """The name a first ingest of `path` would give (ingest/pipeline.py `_unique_name`)."""
    taken = {e.name for e in store.journal.all() if e.doc_id != own}
    if path.name not in taken:
        return path.name
    qualified = f"{path.parent.name}/{path.name}"
    if qualified not in taken:
        return qualified
    n = 2
    while f"{qualified} ({n})" in taken:
        n += 1
    return f"{qualified} ({n})"


def next_record(plan: SyncPlan, results: Iterable[FileResult], any_failure: bool = False) -> FolderRecord:
    """What the folder's record holds after a sync: the files found unsupported (with
    `any_failure`, every file that failed: a watch does not try them again until they change) and
    the SHA-256 of each mailbox file ingested."""
    files = {f.path: f for f in [*plan.add, *(c.file for c in plan.update)]}
    unsupported = {f.path: [f.size, f.mtime_ns] for f in plan.unsupported}
    failed: set[str] = set()
    for r in results:
        if r.ok or r.path not in files:
            continue
        failed.add(r.path)
        if any_failure or r.error_code == "unsupported":
            unsupported[r.path] = [files[r.path].size, files[r.path].mtime_ns]
    return FolderRecord(
        path=plan.folder,
        recursive=plan.recursive,
        unsupported=unsupported,
        mailboxes={p: sha for p, sha in plan.mailboxes.items() if p not in failed},
    )


def remember(app: CaseTrack, case: str, plan: SyncPlan, results: Iterable[FileResult]) -> FolderRecord:
    """Record the folder in the case after a sync (`sync` syncs it again): `next_record`."""
    record = next_record(plan, results)
    with app.writing(case, wait=WAIT_FOR_WRITER_S) as store:
        store.remember_folder(dict(record))
    return record


def forget(app: CaseTrack, case: str, folder: Path) -> bool:
    from casetrack.privacy_fs import real_path

    with app.writing(case) as store:
        return store.forget_folder(str(real_path(folder)))
