"""Documents that come out of another file: an e-mail's attachments, a mailbox's messages.

An e-mail is stored as one document (its headers and body); then each attachment is written to a
private scratch file inside the case folder (0700 folder, 0600 file, removed as soon as it is
stored) and ingested through the normal pipeline as a document of its own, named
"<e-mail's name> › <attachment's file name>" ("Re Contract.eml › contract.pdf"). The link goes
both ways: the attachment's record holds `attachment_of` (the e-mail's id and name), the e-mail's
record lists its attachments' names (`email.attachments`); `documents list` shows both. An
attachment CaseTrack cannot read (a spreadsheet, a zip) becomes a warning on the e-mail's result.

Ingesting the same e-mail again changes nothing (its SHA-256 is known); with --force, or when the
file at the same path changed, each attachment replaces the document it was last time (matched
by its file name), and attachments gone from the e-mail are deleted. Deleting an e-mail deletes
its attachments (app/core.py `delete_document`). An attachment's `source_path` is the e-mail's
file on disk, so `reocr` and `case check --repair` ingest the e-mail again to reach it.

A mailbox (.mbox) is a folder of e-mails in one file: each message becomes an e-mail document
named "<mailbox> › <date> <subject>" (made unique), with its attachments as above. A message
already in the case (same Message-ID, or same bytes) is not ingested twice; messages later removed
from the mailbox stay in the case, as files removed from a folder do after `ingest-folder`.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email import policy
from email.parser import BytesHeaderParser
from pathlib import Path
from typing import Any, Protocol

from casetrack.errors import CorruptFileError
from casetrack.ingest import pending_ocr
from casetrack.ingest.legal_meta import companion_files
from casetrack.logsafe import safe_for_log
from casetrack.parse.email.mbox import mbox_messages
from casetrack.parse.email.parts import MessageParts, safe_filename
from casetrack.privacy_fs import private_dir
from casetrack.store.case_store import CaseStore

log = logging.getLogger(__name__)

SCRATCH = "attachments.tmp"  # in the case folder; only while the case's writer lock is held
MAX_DEPTH = 3  # an e-mail attached to an e-mail attached to an e-mail: deeper ones are not opened
_NAME_CHARS = re.compile(r'[\x00-\x1f\x7f/\\<>:"|?*]+')


@dataclass(frozen=True)
class Origin:
    """Where a document that is not a file of its own came from."""

    source_path: str  # the file on disk it came out of (the e-mail, the mailbox)
    name: str  # its name in the case when it is new
    doc_id: str | None = None  # the document it was last time (a re-ingest replaces it), else None
    meta: Mapping[str, Any] = field(default_factory=dict)  # put in its record: attachment_of / mailbox
    fields: Mapping[str, str] = field(default_factory=dict)  # legal fields it takes from its e-mail
    companions: tuple[Path, ...] = ()  # the companion YAML files that describe it
    depth: int = 1  # how many e-mails it is inside


class Outcome(Protocol):
    """What ingest says about one file (pipeline.FileResult)."""

    status: str
    name: str
    document_id: str | None
    error: str | None
    hint: str | None
    chunks: int
    warnings: list[str]
    attachments: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    file_type: str | None

    @property
    def ok(self) -> bool: ...

    def to_json(self) -> dict[str, Any]: ...


Progress = Callable[[str, int, int], None]


class IngestOne(Protocol):
    """Ingest one document written to `path` for the time being (pipeline.Ingestor.ingest_contained)."""

    def __call__(self, path: Path, origin: Origin, force: bool, progress: Progress) -> Outcome: ...


def clear_scratch(case_dir: Path) -> None:
    """Scratch files a killed ingest left behind (called holding the writer lock, before a file)."""
    scratch = case_dir / SCRATCH
    if scratch.exists():
        shutil.rmtree(scratch, ignore_errors=True)


def _scratch_file(case_dir: Path, filename: str, data: bytes) -> Path:
    """`data` in a private file called `filename`, in a folder of its own under the case."""
    folder = case_dir / SCRATCH / uuid.uuid4().hex[:12]
    private_dir(case_dir / SCRATCH)
    private_dir(folder)
    target = folder / filename
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return target


def _drop_scratch(case_dir: Path, path: Path) -> None:
    """The scratch copy gone (and the scratch folder, once empty)."""
    shutil.rmtree(path.parent, ignore_errors=True)
    pending_ocr.remove(case_dir, path)
    try:
        (case_dir / SCRATCH).rmdir()
    except OSError:  # another e-mail's copy is still in it (an attached e-mail's attachments)
        pass


def _not_ingested(what: str, filename: str, child: Outcome) -> str:
    """ "attachment data.xlsx not ingested: unsupported file type (...). <the fix>" """
    error = child.error or child.status
    if error.startswith(f"{filename}: "):
        error = error[len(filename) + 2 :]
    return f"{what} {filename} not ingested: {error}" + (f" {child.hint}" if child.hint else "")


def _unique(store: CaseStore, wanted: str, own: str | None) -> str:
    taken = {e.name for e in store.journal.all() if e.doc_id != own}
    if wanted not in taken:
        return wanted
    n = 2
    while f"{wanted} ({n})" in taken:
        n += 1
    return f"{wanted} ({n})"


def linked_children(store: CaseStore, parent_id: str) -> dict[str, str]:
    """attachment key -> doc id of the documents stored as attachments of `parent_id`."""
    out = {}
    for entry in store.documents():
        link = entry.meta.get("attachment_of") or {}
        if isinstance(link, dict) and link.get("document_id") == parent_id:
            out[str(link.get("key") or entry.name)] = entry.doc_id
    return out


def delete_with_attachments(store: CaseStore, doc_id: str) -> list[str]:
    """Delete a document and, first, every document attached to it (at any depth); returns the
    names deleted, the document's last. The caller holds the writer lock."""
    names: list[str] = []
    for child in linked_children(store, doc_id).values():
        names += delete_with_attachments(store, child)
    entry = store.journal.get(doc_id)
    store.delete_document(doc_id)
    return names + ([entry.name] if entry else [])


def ingest_attachments(
    store: CaseStore,
    ingest: IngestOne,
    parts: MessageParts,
    result: Outcome,
    origin: Origin | None,
    email_fields: Mapping[str, str],
    force: bool,
    progress: Progress,
) -> None:
    """Ingest the attachments of the e-mail `result` just stored (see the module's docstring)."""
    parent_id, parent_name = result.document_id, result.name
    if parent_id is None:
        return
    depth = origin.depth + 1 if origin else 1
    source = origin.source_path if origin else _source_of(store, parent_id)
    children = linked_children(store, parent_id)
    if parts.attachments and depth > MAX_DEPTH:
        result.warnings.append(
            f"{len(parts.attachments)} attachment(s) not opened: the e-mail is attached inside "
            f"{MAX_DEPTH} other e-mails; save them from the mail program and ingest them"
        )
        return
    inherited = {k: v for k, v in email_fields.items() if k in ("from", "to", "cc", "subject")}
    companions = origin.companions if origin else ()
    for attached in parts.attachments:
        own = children.pop(attached.filename, None)
        child_origin = Origin(
            source_path=source,
            name=_unique(store, f"{parent_name} › {attached.filename}", own),
            doc_id=own,
            meta={"attachment_of": {"document_id": parent_id, "name": parent_name, "key": attached.filename}},
            fields=inherited,
            companions=companions,
            depth=depth,
        )
        try:
            path = _scratch_file(store.dir, attached.filename, attached.data())
        except OSError as e:
            result.warnings.append(
                f"attachment {attached.filename} could not be written to the case folder "
                f"({e.strerror or e}); it was not ingested"
            )
            continue
        try:
            child = ingest(path, child_origin, force, progress)
        finally:
            _drop_scratch(store.dir, path)
        result.attachments.append(child.to_json())
        if own is not None and child.status == "duplicate" and child.document_id != own:
            # now the same bytes as another document: that one stands for it
            delete_with_attachments(store, own)
        if not child.ok:
            result.warnings.append(_not_ingested("attachment", attached.filename, child))
    for gone in children.values():  # attachments the e-mail no longer has
        log.info("%s: attachment %s no longer in the e-mail: deleted", safe_for_log(parent_name), gone)
        delete_with_attachments(store, gone)


def _source_of(store: CaseStore, doc_id: str) -> str:
    entry = store.journal.get(doc_id)
    return str(entry.source_path) if entry and entry.source_path else ""


# -- mailboxes ---------------------------------------------------------------------------------


def _message_label(data: bytes) -> tuple[str, str]:
    """(key, "<date> <subject>") of one message: its Message-ID (else its SHA-256) and its name."""
    try:
        headers = BytesHeaderParser(policy=policy.default).parsebytes(data)
        subject = " ".join(str(headers.get("subject", "") or "").split())
        message_id = " ".join(str(headers.get("message-id", "") or "").split())
        when = getattr(headers.get("date"), "datetime", None)
    except Exception:  # a header the parser chokes on: the message is still ingested
        subject, message_id, when = "", "", None
    day = when.date().isoformat() if when is not None else "undated"
    subject = _NAME_CHARS.sub(" ", subject).strip()[:100] or "(no subject)"
    return message_id or hashlib.sha256(data).hexdigest(), f"{day} {subject}"


def ingest_mailbox(
    store: CaseStore, ingest: IngestOne, path: Path, result: Outcome, force: bool, progress: Progress
) -> None:
    """Each message of the mailbox `path` as an e-mail document (see the module's docstring)."""
    label = path.parent.name if path.name.lower() == "mbox" else path.name  # Apple Mail: Inbox.mbox/mbox
    result.file_type = "mbox"
    known: dict[str, str] = {}
    for entry in store.documents():
        box = entry.meta.get("mailbox") or {}
        if isinstance(box, dict) and box.get("path") == str(path):
            known[str(box.get("key"))] = entry.doc_id
    companions = tuple(companion_files(path))
    for number, data in enumerate(mbox_messages(path), 1):
        key, title = _message_label(data)
        own = known.get(key)
        origin = Origin(
            source_path=str(path),
            name=_unique(store, f"{label} › {title}", own),
            doc_id=own,
            meta={"mailbox": {"path": str(path), "name": label, "key": key, "number": number}},
            fields={"mailbox": label},
            companions=companions,
            depth=0,
        )
        scratch = _scratch_file(store.dir, safe_filename(f"{title}.eml", "message/rfc822", number), data)
        try:
            child = ingest(scratch, origin, force, progress)
        finally:
            _drop_scratch(store.dir, scratch)
        known[key] = child.document_id or ""
        result.messages.append(child.to_json())
    _mailbox_status(path, result)


def _mailbox_status(path: Path, result: Outcome) -> None:
    messages = result.messages
    if not messages:
        raise CorruptFileError(
            f'{path.name} holds no e-mail: no message starts with a "From " envelope line.',
            "Export the mailbox again from the mail program (as .mbox) and ingest that.",
        )
    statuses = [m["status"] for m in messages]
    result.chunks = sum(int(m.get("chunks") or 0) for m in messages)
    failed = [m for m in messages if m["status"] not in ("ingested", "replaced", "duplicate")]
    for m in failed:
        result.warnings.append(f"message {m['name']} not ingested: {m.get('error')}")
    if any(s in ("ingested", "replaced") for s in statuses):
        result.status = "ingested"
    elif all(s == "duplicate" for s in statuses):
        result.status = "duplicate"
        result.hint = "Every message is already in the case; use --force to ingest them again."
    else:
        result.status = "error"
        result.error = (
            f"{path.name}: none of its {len(messages)} messages could be ingested ({failed[0].get('error')})."
        )
        result.hint = failed[0].get("hint")
