"""Portable cases: `case export` writes a case to one `.ctcase` file; `case import` adds it back,
here or on another computer, or adopts a case folder copied from another data directory.

Export holds the case's writer lock for the whole copy (no ingest, delete or re-embed can change
it meanwhile; searches go on) and copies the journal with SQLite's backup API, so the archive is
one consistent state. Import verifies the whole archive before it writes anything, unpacks it
into `cases/.import-<pid>-<random>`, gives the case a fresh id and the name asked for, points
each document at its imported original, re-embeds it when this computer's models differ from
the archive's, and only then renames the folder into place and registers it: a kill -9 at any
moment leaves either no case or the whole case (a leftover temp folder is removed by the next
import). The packing and checking of the file itself is `store/case_archive.py`.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from casetrack import __version__, atomic_files
from casetrack.domain.cases import CaseStatus
from casetrack.errors import CaseExistsError, CaseTrackError, Fix
from casetrack.logsafe import safe_for_log
from casetrack.store import case_archive as ca
from casetrack.store import case_folder as cf
from casetrack.store.registry import CaseRecord, valid_case_name
from casetrack.store.registry_rebuild import name_key, record_from_folder
from casetrack.store.store_errors import store_errors

if TYPE_CHECKING:
    from casetrack.app.core import CaseTrack
    from casetrack.store.case_store import CaseStore
    from casetrack.store.journal import JournalEntry

log = logging.getLogger(__name__)

# stage ("export", "verify", "unpack", "copy", "reembed"), done, total, what is being worked on
PortableProgress = Callable[[str, int, int, str], None]


@dataclass
class ExportReport:
    case: str
    path: str
    bytes: int
    members: int
    documents: int
    chunks: int
    sources: int
    sources_included: bool
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ImportReport:
    case: dict[str, Any]
    source: str
    kind: str  # "archive" or "folder"
    documents: int = 0
    chunks: int = 0
    sources: int = 0
    models_differed: dict[str, str] = field(default_factory=dict)
    reembedded: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


# -- export ----------------------------------------------------------------------------------


def export_case(
    app: CaseTrack,
    name_or_id: str,
    dest: Path,
    include_sources: bool = True,
    overwrite: bool = False,
    progress: PortableProgress | None = None,
    wait: float = 0.0,
) -> ExportReport:
    """Write case `name_or_id` to the archive `dest` (see the module docstring)."""
    started = time.monotonic()
    dest = Path(os.path.abspath(dest.expanduser()))
    record = app.registry.get(name_or_id)
    _check_destination(dest, overwrite, record.name, include_sources)
    with store_errors(app.registry, record.id):
        store = app.open_case(record.id)
        try:
            store.lock.acquire(timeout=wait)
            store.recover()
            report = _export_locked(store, dest, include_sources, progress)
        finally:
            store.close()
    report.seconds = round(time.monotonic() - started, 3)
    log.info(
        "exported case %s to %s: %d bytes in %.1fs",
        safe_for_log(report.case),
        safe_for_log(dest),
        report.bytes,
        report.seconds,
    )
    return report


def _check_destination(dest: Path, overwrite: bool, case: str, include_sources: bool) -> None:
    flag = "" if include_sources else " --no-sources"
    if dest.is_dir():
        raise CaseTrackError(
            f"{dest} is a folder; give the archive's file name.",
            fix=Fix(
                "For example",
                f'casetrack case export "{case}" "{dest / (case + ".ctcase")}"' + flag,
                "export_case",
                {"case_name": case, "destination_path": str(dest / f"{case}.ctcase")},
            ),
        )
    if not dest.parent.is_dir():
        raise CaseTrackError(
            f"The folder {dest.parent} does not exist.", "Create it first, or pick another folder."
        )
    if dest.exists() and not overwrite:
        raise CaseTrackError(
            f"{dest} already exists; it was left as it is.",
            fix=Fix(
                "Replace it",
                f'casetrack case export "{case}" "{dest}"{flag} --force',
                "export_case",
                {"case_name": case, "destination_path": str(dest), "overwrite": True},
            ),
        )


def _export_locked(
    store: CaseStore, dest: Path, include_sources: bool, progress: PortableProgress | None
) -> ExportReport:
    docs = store.documents()
    sources, warnings = _sources(docs) if include_sources else ([], [])
    files = ca.case_files(store.dir) + [(s["member"], Path(s["original_path"])) for s in sources]
    blobs = {ca.CASE + ca.JOURNAL: ca.journal_image(store.dir / ca.JOURNAL)}
    chunks = sum(e.expected_chunks for e in docs)
    manifest = {
        "casetrack_version": __version__,
        "exported_at": time.time(),
        "case": dict(store.record.to_json()),
        "models": store.models(),
        "documents": len(docs),
        "chunks": chunks,
        "sources_included": include_sources,
        "sources": sources,
        "source_warnings": warnings,
    }
    ca.clean_parts(dest)
    step = (lambda done, total, name: progress("export", done, total, name)) if progress else None
    _, members = ca.pack(dest, files, blobs, manifest, step)
    by_path = {m.path: m for m in members}
    for s in sources:  # changed between the check and the copy: kept, but not linked on import
        if by_path[s["member"]].sha256 != s["sha256"]:
            warnings.append(
                f"{s['name']}: its original file changed while it was being exported; the copy in the "
                "archive will not be linked to the document"
            )
    return ExportReport(
        store.record.name,
        str(dest),
        dest.stat().st_size,
        len(members) + 1,
        len(docs),
        chunks,
        len(sources),
        include_sources,
        warnings,
    )


def _sources(docs: list[JournalEntry]) -> tuple[list[dict[str, Any]], list[str]]:
    """The originals that go into the archive (present and unchanged: same SHA-256), and a warning
    for each one that does not."""
    out, warnings = [], []
    for entry in docs:
        if not entry.source_path:
            warnings.append(f"{entry.name}: no original file is recorded; not included")
            continue
        path = Path(entry.source_path)
        if not path.is_file():
            warnings.append(f"{entry.name}: the original file is not at {path}; not included")
            continue
        if ca.sha256_of(path) != entry.sha256:
            warnings.append(f"{entry.name}: the file at {path} changed after it was ingested; not included")
            continue
        safe = (
            "".join(c for c in path.name if c not in '/\\:*?"<>|' and ord(c) >= 32).strip(" .")
            or entry.doc_id
        )
        out.append(
            {
                "doc_id": entry.doc_id,
                "name": entry.name,
                "member": f"{ca.SOURCES}{entry.doc_id}/{safe}",
                "sha256": entry.sha256,
                "original_path": str(path),
            }
        )
    return out, warnings


# -- import ----------------------------------------------------------------------------------


def import_case(
    app: CaseTrack, source: Path, new_name: str | None = None, progress: PortableProgress | None = None
) -> ImportReport:
    """Add the case in `source` (a .ctcase archive or a case folder) under a fresh id, named
    `new_name` or as it was named where it came from."""
    started = time.monotonic()
    source = Path(os.path.abspath(source.expanduser()))
    cf.clean_leftovers(app.settings.cases_dir)
    if source.is_dir():
        report = _import_folder(app, source, new_name, progress)
    elif source.is_file():
        report = _import_archive(app, source, new_name, progress)
    else:
        raise CaseTrackError(
            f"No file or folder at {source}.",
            "Check the path: a .ctcase archive, or a case folder (holding case.json, journal.sqlite "
            "and lance/).",
        )
    report.seconds = round(time.monotonic() - started, 3)
    log.info(
        "imported case %s from %s in %.1fs",
        safe_for_log(report.case["name"]),
        safe_for_log(source),
        report.seconds,
    )
    return report


def _stage(progress: PortableProgress | None, stage: str) -> ca.Progress | None:
    if progress is None:
        return None
    return lambda done, total, name: progress(stage, done, total, name)


def _import_archive(
    app: CaseTrack, archive: Path, new_name: str | None, progress: PortableProgress | None
) -> ImportReport:
    manifest = ca.verify(archive, _stage(progress, "verify"))  # nothing is written before this passes
    name = _free_name(app, new_name or str(manifest.case.get("name") or ""), archive)
    report = ImportReport(
        {}, str(archive), "archive", warnings=list(manifest.raw.get("source_warnings") or [])
    )
    with cf.staging(app.settings.cases_dir) as tmp, _on_disk_full(app):
        ca.unpack(archive, manifest, tmp, _stage(progress, "unpack"))
        new_id = uuid.uuid4().hex[:12]
        final = app.registry.case_dir(new_id)
        members = {m.path: m.sha256 for m in manifest.members}
        paths = {
            s["doc_id"]: str(final / s["member"])
            for s in manifest.sources
            if members.get(str(s.get("member"))) == s.get("sha256")
        }
        if not manifest.raw.get("sources_included"):
            report.warnings.append(
                "The archive carries no original files (exported with --no-sources): documents "
                "keep the paths they had on the computer they came from."
            )
        report.sources = len(paths)
        _finish(app, tmp, new_id, name, paths, report, progress)
    return report


def _import_folder(
    app: CaseTrack, folder: Path, new_name: str | None, progress: PortableProgress | None
) -> ImportReport:
    from casetrack.store.lock import WriterLock

    for mark in ("case.json", ca.JOURNAL, "lance"):
        if not (folder / mark).exists():
            raise CaseTrackError(
                f"{folder} is not a CaseTrack case folder (it has no {mark}).",
                "Give a case folder (DATA_DIR/cases/<id>, holding case.json, journal.sqlite and lance/) or a "
                ".ctcase archive made by: casetrack case export NAME FILE.ctcase",
            )
    name = _free_name(app, new_name or str(record_from_folder(folder)["name"]), folder)
    lock = WriterLock(folder / "writer.lock", name)
    if (folder / "writer.lock").exists():
        lock.acquire()  # a CaseTrack elsewhere writing it: refused, with the pid to wait for
    report = ImportReport({}, str(folder), "folder")
    try:
        with cf.staging(app.settings.cases_dir) as tmp, _on_disk_full(app):
            files = ca.case_files(folder)
            theirs = folder / "sources"
            files += [
                (ca.SOURCES + p.relative_to(theirs).as_posix(), p)
                for p in sorted(theirs.rglob("*"))
                if p.is_file()
            ]
            total, done = sum(p.stat().st_size for _, p in files), 0
            for member, path in files:
                ca.copy_file(path, tmp / member.removeprefix(ca.CASE))
                done += path.stat().st_size
                if progress is not None:
                    progress("copy", done, total, member)
            with ca.private_write(tmp / ca.JOURNAL) as out:
                out.write(ca.journal_image(folder / ca.JOURNAL))
            new_id = uuid.uuid4().hex[:12]
            paths = cf.rebased_sources(tmp, theirs, app.registry.case_dir(new_id) / "sources")
            report.sources = len(paths)
            _finish(app, tmp, new_id, name, paths, report, progress)
    finally:
        lock.release()
    return report


def _finish(
    app: CaseTrack,
    tmp: Path,
    new_id: str,
    name: str,
    paths: dict[str, str],
    report: ImportReport,
    progress: PortableProgress | None,
) -> None:
    """The unpacked folder made this computer's case: new id and name, documents pointing at their
    imported originals, re-embedded if the models differ; then renamed into place and registered."""
    from casetrack.ingest.embedding import model_mismatches
    from casetrack.store.case_store import CaseStore
    from casetrack.store.lance_tables import fsync_tree

    row = record_from_folder(tmp)
    record = CaseRecord(
        new_id,
        name,
        row["case_type"],
        row["language"],
        CaseStatus(row["status"]),
        row["created_at"],
        time.time(),
    )
    cf.set_source_paths(tmp, paths)
    store = CaseStore(record, tmp)  # writes case.json with the new id and name
    try:
        store.lock.acquire()
        store.recover()
        report.warnings += _local_folders(store, name)
        report.models_differed = model_mismatches(store.models(), app.pool, record.language, name)
        if report.models_differed:
            report.reembedded = _reembed(app, store, progress)
        docs = store.documents()
        report.documents, report.chunks = len(docs), sum(e.expected_chunks for e in docs)
    finally:
        store.close()
    (tmp / "writer.lock").unlink(missing_ok=True)
    fsync_tree(tmp, 0.0)
    final = app.registry.case_dir(new_id)
    atomic_files.rename_durably(tmp, final)
    try:
        cf.register_folder(app.settings.registry_path, final)
    except sqlite3.IntegrityError as e:  # the name was taken while we worked
        app.registry.delete(new_id)
        raise _name_taken(name, Path(report.source)) from e
    report.case = dict(app.registry.get(new_id).to_json())


def _local_folders(store: CaseStore, name: str) -> list[str]:
    """An imported case's folders are the exporting computer's: watched ones are not watched here
    (the daemon would start reading a folder nobody chose on this computer), mirrored ones this
    computer does not have are forgotten. Each says how to set it up again."""
    warnings = []
    for folder in store.watched():
        store.set_watched(folder["path"], None)
        warnings.append(
            f"The case watched {folder['path']} where it came from; not watched here. Watch a folder: "
            f'casetrack case set "{name}" --watch FOLDER'
        )
    for folder in store.folders():
        if not Path(folder["path"]).is_dir():
            store.forget_folder(folder["path"])
            warnings.append(
                f"The case mirrored {folder['path']}, which this computer does not have; forgotten. "
                f'Mirror a folder: casetrack ingest-folder --case "{name}" FOLDER --sync'
            )
    return warnings


def _reembed(app: CaseTrack, store: CaseStore, progress: PortableProgress | None) -> list[dict[str, Any]]:
    from casetrack.ingest.reembed import reembed_case

    def on_document(i: int, total: int, name: str) -> None:
        if progress is not None:
            progress("reembed", i, total, name)

    done = reembed_case(store, app.pool, False, on_document)
    for step in store.lance.maintain():
        log.info("imported case %s: %s", safe_for_log(store.record.name), step)
    return done.reembedded


def _free_name(app: CaseTrack, name: str, source: Path) -> str:
    name = valid_case_name(name)
    if any(name_key(r.name) == name_key(name) for r in app.registry.list()):
        raise _name_taken(name, source)
    return name


def _name_taken(name: str, source: Path) -> CaseExistsError:
    other = f"{name} (imported)"
    return CaseExistsError(
        f"A case named '{name}' already exists here. Nothing was imported.",
        fix=Fix(
            "Import it under another name",
            f'casetrack case import "{source}" --as "{other}"',
            "import_case",
            {"source_path": str(source), "new_name": other},
        ),
    )


@contextmanager
def _on_disk_full(app: CaseTrack) -> Iterator[None]:
    try:
        yield
    except OSError as e:
        if e.errno != 28:  # ENOSPC
            raise
        raise CaseTrackError(
            f"The disk holding {app.settings.data_dir} is full. Nothing was imported.",
            "Free some space, then import again.",
        ) from e
