"""An ingest batch as the app runs it, holding the case's writer lock: model check, files one by
one, then compaction and indexes."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from casetrack.app.models_check import mismatches
from casetrack.embed.protocols import EmbedderPool
from casetrack.errors import CaseTrackError
from casetrack.ingest.pipeline import FileResult, Ingestor, Parse, Progress
from casetrack.logsafe import safe_for_log
from casetrack.store.case_store import CaseStore

if TYPE_CHECKING:
    from casetrack.store.case_check import CheckReport

log = logging.getLogger(__name__)


def ingest_files(
    store: CaseStore,
    pool: EmbedderPool,
    parse: Parse | None,
    paths: Sequence[Path],
    force: bool,
    password: str | None,
    on_file: Callable[[int, int, Path], None] | None,
    progress: Progress | None,
    on_result: Callable[[FileResult], None] | None,
    ocr_languages: str | None = None,
    keep_revoked: bool = False,
) -> list[FileResult]:
    mismatched = mismatches(store, pool)
    if mismatched:
        raise CaseTrackError(
            "The installed models differ from the ones this case was embedded with; new "
            "documents would not be comparable with the old ones. " + " ".join(mismatched.values()),
            f'casetrack reembed --case "{store.record.name}"',
        )
    ingestor = Ingestor(store, pool, parse, ocr_languages, keep_revoked)
    results: list[FileResult] = []
    for i, path in enumerate(paths):
        if on_file:
            on_file(i, len(paths), path)
        kwargs = {"progress": progress} if progress else {}
        result = ingestor.ingest_file(path, force=force, password=password, **kwargs)
        log.info("%s: %s", safe_for_log(path.name), result.status)
        results.append(result)
        if on_result:
            on_result(result)
    if any(r.status in ("ingested", "replaced") for r in results):
        if progress:
            progress("index", 0, 1)
        for step in store.lance.maintain():
            log.info("case %s: %s", safe_for_log(store.record.name), step)
        if progress:
            progress("index", 1, 1)
    return results


def ocr_targets(store: CaseStore, documents: Sequence[str] = (), languages: str | None = None) -> list[Path]:
    """The files `casetrack reocr` ingests again: the documents named (all of them), else every
    document with pages that still need OCR and every file refused as a scan OCR could not
    read. Raises when OCR cannot run, with the command that installs it."""
    from casetrack.ingest import pending_ocr
    from casetrack.ocr import ocr_languages, require_languages
    from casetrack.store.documents import resolve_documents

    if languages == "":
        raise CaseTrackError(
            "OCR is turned off (CASETRACK_OCR_LANGUAGES is empty).",
            "Unset CASETRACK_OCR_LANGUAGES, or set it to eng, por or eng+por.",
        )
    require_languages(languages or ocr_languages(store.record.language))
    if documents:
        wanted = resolve_documents(store, list(documents))
        entries = [e for e in store.documents() if e.doc_id in wanted]
    else:
        entries = [e for e in store.documents() if e.meta.get("needs_ocr_pages")]
    paths = [Path(e.source_path) for e in entries if e.source_path]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise CaseTrackError(
            f"{len(missing)} source file(s) are no longer where they were ingested from: {', '.join(missing[:3])}.",
            "Put them back (or ingest them again from their new place).",
        )
    if not documents:
        paths += [Path(p) for p in pending_ocr.load(store.dir) if Path(p).is_file() and Path(p) not in paths]
    return paths


def ingest_lost_again(
    case_dir: Path,
    report: CheckReport,
    ingest: Callable[[list[Path]], list[FileResult]],
    check: Callable[[], CheckReport],
) -> CheckReport:
    """A document whose only LanceDB copy was destroyed is ingested again from its original
    file when that file is still there, unchanged (same SHA-256): then nothing is lost.
    `ingest` ingests files into the case, `check` checks it again afterwards."""
    from casetrack.ingest.files import sha256_file
    from casetrack.store.lance_repair import lost_sources

    paths = [path for path, sha in lost_sources(case_dir) if sha256_file(path) == sha]
    if not paths:
        return report
    try:
        results = ingest(paths)
    except CaseTrackError as e:  # no models, say: the repair's lines already name the command
        report["problems"].append(f"the lost documents could not be ingested again here: {e.message}")
        return report
    done = [f"ingested {r.name} again from its unchanged original file ({r.path})" for r in results if r.ok]
    after = check()
    after["repaired"] = report["repaired"] + done
    return after
