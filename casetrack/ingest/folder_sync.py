"""Mirror a folder in a case: what a sync would do, planned before anything changes.

`plan_sync` walks the folder (`scan_folder`), fingerprints each settled file and compares the
folder with the case's documents whose file lies in it (in its top level, or anywhere under it
when the folder is synced recursively):

- add: a file no document came from; update: a document's file whose bytes changed;
- rename: a new path holding the bytes of a document whose file is gone (moved or renamed): the
  document takes the new path and name, nothing is parsed or embedded again;
- remove: a document whose file is gone; an e-mail's attachments and a mailbox's messages go with
  their file (their `source_path` is the e-mail's or the mailbox's), never on their own;
- unchanged; duplicate: a new file whose bytes another document already holds (ingest says
  "duplicate" too); unsupported: a file the last sync could not read (a spreadsheet), unchanged
  since (same size and modification time): listed, not tried again;
- in_progress: a file modified within the last `settle_s` seconds, or whose size or modification
  time changed while it was read: still being copied, picked up by the next sync.

A file the walk could not read (permissions, a sub-folder that cannot be listed) keeps its
documents: only a file certainly gone is removed. The case remembers each synced folder in its
case.json (`FolderRecord`: path, recursive, the unsupported files, each mailbox file's SHA-256,
since a mailbox is stored as its messages and has no document of its own).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from casetrack.ingest.files import SkippedEntry, scan_folder, sha256_file
from casetrack.privacy_fs import real_path
from casetrack.store.journal import JournalEntry

DEFAULT_SETTLE_S = 3.0
WATCH_INTERVAL_S = 2.0  # seconds between two looks at a watched folder (`watch --interval`, the daemon)
# Walk entries whose documents are kept although the walk did not list the file.
_KEEP_CODES = ("unreadable", "not_a_file", "broken_link", "link_loop")
# (real path) -> (size, mtime_ns, sha256): a long-running watch hashes each file version once.
HashCache = dict[str, tuple[int, int, str]]


class FolderRecord(TypedDict):
    """A synced folder as its case remembers it (case.json "folders")."""

    path: str
    recursive: bool
    unsupported: dict[str, list[int]]  # real path -> [size, mtime_ns] when it was found unreadable
    mailboxes: dict[str, str]  # real path of a mailbox file -> its SHA-256 at the last sync


def folder_record(raw: dict[str, Any]) -> FolderRecord:
    """A record read back from case.json (defaults for what it lacks)."""
    unsupported = raw.get("unsupported") if isinstance(raw.get("unsupported"), dict) else {}
    mailboxes = raw.get("mailboxes") if isinstance(raw.get("mailboxes"), dict) else {}
    return FolderRecord(
        path=str(raw["path"]),
        recursive=bool(raw.get("recursive", False)),
        unsupported={str(k): list(v) for k, v in (unsupported or {}).items()},
        mailboxes={str(k): str(v) for k, v in (mailboxes or {}).items()},
    )


@dataclass(frozen=True)
class FolderFile:
    path: str  # the file's real path: how the case records where a document came from
    name: str  # its path relative to the folder, as reports show it
    size: int
    mtime_ns: int
    sha256: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "size": self.size}


@dataclass(frozen=True)
class Change:
    """A document and the file it now follows (update, rename) or matches (duplicate)."""

    document_id: str
    document: str  # the document's name in the case now
    file: FolderFile

    def to_json(self) -> dict[str, Any]:
        return {"document_id": self.document_id, "document": self.document, **self.file.to_json()}


@dataclass(frozen=True)
class Removal:
    """A file gone from the folder and every document that came from it."""

    source_path: str
    document_ids: tuple[str, ...]  # each deleted with its attachments (a mailbox: one per message)
    documents: tuple[str, ...]  # the names of every document that goes, attachments included

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.source_path,
            "document_ids": list(self.document_ids),
            "documents": list(self.documents),
        }


@dataclass
class SyncPlan:
    folder: str
    recursive: bool
    add: list[FolderFile] = field(default_factory=list)
    update: list[Change] = field(default_factory=list)
    rename: list[Change] = field(default_factory=list)
    remove: list[Removal] = field(default_factory=list)
    unchanged: list[FolderFile] = field(default_factory=list)
    duplicate: list[Change] = field(default_factory=list)
    unsupported: list[FolderFile] = field(default_factory=list)
    in_progress: list[FolderFile] = field(default_factory=list)
    skipped: list[SkippedEntry] = field(default_factory=list)
    mailboxes: dict[str, str] = field(default_factory=dict)  # mailbox files present: path -> SHA-256

    def to_ingest(self) -> list[Path]:
        """The files to hand to ingest: changed ones first (a new file may hold a changed one's old
        bytes: ingest must not find them in the case any more), then new ones."""
        return [Path(c.file.path) for c in self.update] + [Path(f.path) for f in self.add]

    def counts(self) -> dict[str, int]:
        return {
            "add": len(self.add),
            "update": len(self.update),
            "rename": len(self.rename),
            "remove": len(self.remove),
            "remove_documents": sum(len(r.documents) for r in self.remove),
            "unchanged": len(self.unchanged),
            "duplicate": len(self.duplicate),
            "unsupported": len(self.unsupported),
            "in_progress": len(self.in_progress),
            "skipped": len(self.skipped),
        }

    @property
    def folder_empty(self) -> bool:
        """The walk found no file at all: an unmounted drive's empty mount point looks the same, so
        the callers keep the documents (removing a whole folder's takes `documents delete`)."""
        return not (
            self.add
            or self.update
            or self.rename
            or self.unchanged
            or self.duplicate
            or self.unsupported
            or self.in_progress
            or self.skipped
        )

    @property
    def changes(self) -> bool:
        return bool(self.add or self.update or self.rename or self.remove)

    def to_json(self) -> dict[str, Any]:
        return {
            "folder": self.folder,
            "recursive": self.recursive,
            "counts": self.counts(),
            "add": [f.to_json() for f in self.add],
            "update": [c.to_json() for c in self.update],
            "rename": [c.to_json() for c in self.rename],
            "remove": [r.to_json() for r in self.remove],
            "unchanged": [f.name for f in self.unchanged],
            "duplicate": [c.to_json() for c in self.duplicate],
            "unsupported": [f.to_json() for f in self.unsupported],
            "in_progress": [f.to_json() for f in self.in_progress],
            "skipped": [
                {"name": s.name, "path": str(s.path), "code": s.code, "reason": s.reason}
                for s in self.skipped
            ],
        }


def contained(entry: JournalEntry) -> bool:
    """Whether a document came out of another file (an e-mail's attachment, a mailbox's message)."""
    return bool(entry.meta.get("attachment_of") or entry.meta.get("mailbox"))


def is_mailbox(path: str) -> bool:
    """A .mbox file, or Apple Mail's "Inbox.mbox/mbox"."""
    name = Path(path).name.lower()
    return name == "mbox" or name.endswith(".mbox")


def plan_sync(
    folder: Path,
    recursive: bool,
    documents: list[JournalEntry],
    record: FolderRecord | None = None,
    settle_s: float = DEFAULT_SETTLE_S,
    now: float | None = None,
    hashes: HashCache | None = None,
) -> SyncPlan:
    """What mirroring `folder` in a case holding `documents` (committed) would do; changes nothing.
    `record`: what the last sync of this folder remembered; `hashes`: a cache kept between calls."""
    scan = scan_folder(folder, recursive)
    root = real_path(folder)
    plan = SyncPlan(str(root), recursive, skipped=list(scan.skipped))
    present: set[str] = set()
    files = _fingerprint(
        scan.files,
        folder,
        record,
        settle_s,
        time.time() if now is None else now,
        {} if hashes is None else hashes,
        plan,
        present,
    )
    keep = [str(real_path(s.path)) for s in scan.skipped if s.code in _KEEP_CODES]
    _match(plan, files, documents, _Scope(root, recursive, present, keep), record)
    return plan


def _fingerprint(
    paths: list[Path],
    folder: Path,
    record: FolderRecord | None,
    settle_s: float,
    now: float,
    hashes: HashCache,
    plan: SyncPlan,
    present: set[str],
) -> list[FolderFile]:
    """The settled files with their SHA-256; the others go to the plan's unsupported / in_progress."""
    unsupported = record["unsupported"] if record else {}
    files = []
    for path in paths:
        real = str(real_path(path))
        if real in present:  # a link to a file the walk lists as well
            continue
        present.add(real)
        try:
            st = os.stat(path)
            file = FolderFile(real, _relative(path, folder), st.st_size, st.st_mtime_ns)
            if unsupported.get(real) == [st.st_size, st.st_mtime_ns]:
                plan.unsupported.append(file)
                continue
            if abs(now - st.st_mtime) < settle_s:  # written a moment ago: maybe still being copied
                plan.in_progress.append(file)
                continue
            cached = hashes.get(real)
            if cached is not None and cached[:2] == (st.st_size, st.st_mtime_ns):
                sha = cached[2]
            else:
                sha = sha256_file(path)
                again = os.stat(path)
                if (again.st_size, again.st_mtime_ns) != (st.st_size, st.st_mtime_ns):  # grew while read
                    plan.in_progress.append(file)
                    continue
                hashes[real] = (st.st_size, st.st_mtime_ns, sha)
        except OSError:  # vanished or unreadable while we looked: its documents stay, the next sync sees
            continue
        files.append(FolderFile(real, file.name, file.size, file.mtime_ns, sha))
    return files


def _relative(path: Path, folder: Path) -> str:
    return str(path.relative_to(folder)) if path.is_relative_to(folder) else path.name


@dataclass
class _Scope:
    root: Path
    recursive: bool
    present: set[str]  # every file the walk listed (settled or not)
    keep: list[str]  # entries the walk could not read: their documents stay

    def holds(self, source_path: str | None) -> bool:
        """Whether a document's file lies in the synced folder."""
        if not source_path:
            return False
        path = Path(source_path)
        return path.parent == self.root or (self.recursive and path.is_relative_to(self.root))

    def gone(self, source_path: str) -> bool:
        """Whether a document's file is certainly gone from the folder."""
        if source_path in self.present:
            return False
        return not any(source_path == k or Path(source_path).is_relative_to(k) for k in self.keep)


def _match(
    plan: SyncPlan,
    files: list[FolderFile],
    documents: list[JournalEntry],
    scope: _Scope,
    record: FolderRecord | None,
) -> None:
    top = {e.source_path: e for e in documents if not contained(e) and scope.holds(e.source_path)}
    boxes: dict[str, list[JournalEntry]] = {}
    for e in documents:
        box = e.meta.get("mailbox")
        if isinstance(box, dict) and e.source_path and scope.holds(e.source_path):
            boxes.setdefault(e.source_path, []).append(e)
    orphans: dict[str, list[JournalEntry]] = {}  # documents whose file is gone, by SHA-256: renames
    for path, doc in top.items():
        if path and scope.gone(path):
            orphans.setdefault(doc.sha256, []).append(doc)
    remembered = record["mailboxes"] if record else {}
    rest: list[FolderFile] = []
    for f in files:
        sha = str(f.sha256)
        entry = top.get(f.path)
        if entry is not None:
            if entry.sha256 == sha:
                plan.unchanged.append(f)
            else:
                plan.update.append(Change(entry.doc_id, entry.name, f))
        elif f.path in boxes:  # a mailbox: its messages are the documents
            plan.mailboxes[f.path] = sha
            if remembered.get(f.path) == sha:
                plan.unchanged.append(f)
            else:
                plan.update.append(Change("", f.name, f))
        elif orphans.get(sha):
            moved = orphans[sha].pop(0)
            plan.rename.append(Change(moved.doc_id, moved.name, f))
        else:
            rest.append(f)
    renamed = {c.document_id for c in plan.rename}
    children = _children(documents)
    for path, entry in top.items():
        if path and entry.doc_id not in renamed and scope.gone(path):
            plan.remove.append(Removal(path, (entry.doc_id,), _names(entry, children)))
    for path, messages in boxes.items():
        if scope.gone(path):
            names = tuple(n for m in messages for n in _names(m, children))
            plan.remove.append(Removal(path, tuple(m.doc_id for m in messages), names))
    going = {i for r in plan.remove for i in r.document_ids}
    going |= {c for i in list(going) for c in _descendants(i, children)}
    going |= {c.document_id for c in plan.update}  # their bytes change: ingest sees the new ones first
    by_sha = {e.sha256: e for e in documents if e.doc_id not in going}
    for f in rest:
        if is_mailbox(f.path):  # its messages may be in the case already: ingest sorts them out
            plan.mailboxes[f.path] = str(f.sha256)
            plan.add.append(f)
        elif str(f.sha256) not in by_sha:
            plan.add.append(f)
        else:
            same = by_sha[str(f.sha256)]
            plan.duplicate.append(Change(same.doc_id, same.name, f))
    plan.remove.sort(key=lambda r: r.source_path)


def _children(documents: list[JournalEntry]) -> dict[str, list[JournalEntry]]:
    """doc id -> the documents attached to it."""
    out: dict[str, list[JournalEntry]] = {}
    for e in documents:
        link = e.meta.get("attachment_of")
        if isinstance(link, dict) and link.get("document_id"):
            out.setdefault(str(link["document_id"]), []).append(e)
    return out


def _descendants(doc_id: str, children: dict[str, list[JournalEntry]]) -> list[str]:
    return [i for c in children.get(doc_id, []) for i in (c.doc_id, *_descendants(c.doc_id, children))]


def _names(entry: JournalEntry, children: dict[str, list[JournalEntry]]) -> tuple[str, ...]:
    """The document's name after those of everything attached to it (the order they are deleted in)."""
    return tuple(n for c in children.get(entry.doc_id, []) for n in _names(c, children)) + (entry.name,)
