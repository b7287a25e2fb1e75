"""The QC report of an ingest batch (`ingest-folder --report qc.csv`): one row per file, what a
paralegal hands the supervising attorney — did every file go in, how much was read by OCR and how
well, which pages are blank, which files are copies of others, what failed and how to fix it, the
Bates range and the document type.

Rows come from the batch's `FileResult`s (the same whether the CLI ingested in-process or through
the daemon), an e-mail's attachments and a mailbox's messages each on their own row, plus the
files of the folder the walk passed over because CaseTrack does not read their type.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from casetrack.domain.document import READABLE_TYPES
from casetrack.ingest.files import REPORTED_EXTENSIONS
from casetrack.ingest.pipeline import FileResult
from casetrack.parse.detect import SUPPORTED_EXTENSIONS

if TYPE_CHECKING:
    from casetrack.app.syncing import Applied
    from casetrack.ingest.folder_sync import SyncPlan

# In the order a supervising attorney reads them: which file, did it go in, how much of it is
# there and how it was read, what to look at, then the facts for the index of the production.
QC_COLUMNS = (
    "File",
    "Status",
    "Pages",
    "Pages OCR'd",
    "OCR confidence (mean, 0-100)",
    "Low-confidence pages",
    "Blank pages",
    "Pages needing OCR",
    "Duplicate of",
    "Problem",
    "Fix",
    "Bates range",
    "Document type",
    "Document date",
    "Notes",
    "Path",
)

_STATUS = {
    "ingested": "ingested",
    "replaced": "replaced (changed file)",
    "duplicate": "duplicate",
    "needs_ocr": "needs OCR",
    "error": "failed",
    # a sync's moves (sync_results)
    "removed": "removed (file gone from the folder)",
    "renamed": "renamed (same content, not read again)",
}
# Folder entries the walk did not hand to ingest (ingest/files.py codes), and unread file types.
_SKIP_CODES = frozenset(
    {"outside_folder", "link_loop", "broken_link", "unreadable", "not_a_file", "not_read"}
)


def _pages(numbers: Sequence[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def qc_row(r: FileResult, parent: str = "") -> dict[str, Any]:
    """One file's row; `parent`: the e-mail or mailbox it came out of ("" for a file of the folder)."""
    ok = r.status in ("ingested", "replaced")
    status = (
        "skipped" if r.status == "error" and r.error_code in _SKIP_CODES else _STATUS.get(r.status, r.status)
    )
    notes = [w for w in r.warnings if "model is not installed" not in w]  # batch-wide: once, in the summary
    return {
        "File": f"{parent} › {r.name}" if parent else r.name,
        "Status": status,
        "Pages": r.pages if ok and r.pages else None,
        "Pages OCR'd": len(r.ocr_pages) if ok else None,
        "OCR confidence (mean, 0-100)": r.ocr_confidence if ok else None,
        "Low-confidence pages": _pages(r.low_confidence_pages),
        "Blank pages": _pages(r.blank_pages),
        "Pages needing OCR": _pages(r.needs_ocr_pages),
        "Duplicate of": r.duplicate_of or "",
        "Problem": r.error or "",
        "Fix": r.hint if r.status != "duplicate" else "Nothing to do (use --force to ingest it again).",
        "Bates range": r.bates or "",
        "Document type": r.doc_type or "",
        "Document date": r.doc_date or "",
        "Notes": "; ".join(notes),
        "Path": r.path,
    }


def qc_rows(results: Iterable[FileResult], parent: str = "") -> list[dict[str, Any]]:
    """Every file's row, each e-mail's attachments and each mailbox's messages right under it."""
    rows: list[dict[str, Any]] = []
    for r in results:
        rows.append(qc_row(r, parent))
        inner = [FileResult(**part) for part in [*r.attachments, *r.messages]]
        if inner:
            rows += qc_rows(inner, f"{parent} › {r.name}" if parent else r.name)
    return rows


def unread_files(folder: Path, recursive: bool, listed: Iterable[str]) -> list[FileResult]:
    """The files of `folder` that no result lists because their type is not one CaseTrack reads
    (a .zip, a .csv): each a "skipped" result saying so, so the report accounts for every file.
    Hidden files, Office lock files (~$...) and symbolic links are left out, as the walk does."""
    seen = {os.path.abspath(p) for p in listed}
    out: list[FileResult] = []
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")) if recursive else []
        for name in sorted(files):
            path = Path(here) / name
            suffix = path.suffix.lower()
            if (
                name.startswith((".", "~$"))
                or suffix in SUPPORTED_EXTENSIONS
                or suffix in REPORTED_EXTENSIONS
                or name.lower() == "mbox"
                or os.path.abspath(path) in seen
                or path.is_symlink()
            ):
                continue
            kind = suffix or "a file without an extension"
            out.append(
                FileResult(
                    path=str(path),
                    name=str(path.relative_to(folder)),
                    status="error",
                    error_code="not_read",
                    error=f"not a type of document CaseTrack reads ({kind}): not ingested.",
                    hint="If it holds case documents, save or export them as PDF, DOCX or TXT and ingest those "
                    f"(CaseTrack reads {READABLE_TYPES}).",
                )
            )
    return out


def sync_results(plan: SyncPlan, applied: Applied) -> list[FileResult]:
    """A sync's moves as report rows (`ingest-folder --sync --report`): each document removed
    because its file left the folder, each renamed one under its new name, and the files listed
    unsupported before (not tried again until they change)."""
    removed = set(applied.removed)
    out = [
        FileResult(path=r.source_path, name=name, status="removed")
        for r in plan.remove
        for name in r.documents
        if name in removed
    ]
    paths = {c.document: c.file.path for c in plan.rename}
    out += [
        FileResult(path=paths.get(old, ""), name=new, status="renamed", warnings=[f"was {old}"])
        for old, new in applied.renamed
    ]
    out += [
        FileResult(
            path=f.path,
            name=f.name,
            status="error",
            error_code="not_read",
            error="unsupported: listed by an earlier sync, not tried again until it changes.",
            hint="If it holds case documents, save or export them as PDF, DOCX or TXT and ingest those "
            f"(CaseTrack reads {READABLE_TYPES}).",
        )
        for f in plan.unsupported
    ]
    return out
