"""`casetrack ingest` and `casetrack ingest-folder`: batch loads with a per-file report."""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from casetrack.cli.common import EXIT_PARTIAL, case_option, cli_daemon_mode, get_app
from casetrack.cli.qc_option import report_option, write_qc_report
from casetrack.ingest.files import scan_folder

if TYPE_CHECKING:  # the pipeline pulls in LanceDB and the parsers: not for `casetrack --help`
    from casetrack.ingest.pipeline import FileResult


class _Bar:
    """A progress bar on stderr when it is a terminal; silent otherwise (scripts, CI, --json)."""

    def __init__(self, total: int) -> None:
        self.enabled = sys.stderr.isatty()
        self._bar: Any = None
        if self.enabled:
            self._bar = click.progressbar(
                length=total, label="Ingesting", file=sys.stderr, show_pos=True, item_show_func=lambda s: s
            )
            self._bar.__enter__()
        self._name = ""

    def on_file(self, index: int, total: int, path: Path) -> None:
        self._name = path.name
        if self._bar is not None:
            if index:
                self._bar.update(1)
            self._bar.current_item = path.name[:40]
            self._bar.render_progress()

    def on_stage(self, stage: str, done: int, total: int) -> None:
        if self._bar is not None and stage in ("embed", "parse") and total > 1:  # parse: page by page (OCR)
            self._bar.current_item = f"{self._name[:32]} ({stage} {done}/{total})"
            self._bar.render_progress()
        elif self._bar is not None and stage == "index" and done == 0:
            self._bar.current_item = "updating search indexes"
            self._bar.render_progress()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.update(1)
            self._bar.__exit__(None, None, None)


def _summary(results: list[FileResult]) -> dict[str, Any]:
    counts = Counter(r.status for r in results)
    return {
        "files": len(results),
        "ingested": counts["ingested"],
        "replaced": counts["replaced"],
        "duplicates": counts["duplicate"],
        "needs_ocr": counts["needs_ocr"],
        "errors": counts["error"],
        "pages": sum(r.pages for r in results if r.status in ("ingested", "replaced")),
        "chunks": sum(r.chunks for r in results),
        "needs_ocr_pages": sum(len(r.needs_ocr_pages) for r in results if r.ok),
        "ocr_pages": sum(len(r.ocr_pages) for r in results if r.ok),
        "low_confidence_pages": sum(len(r.low_confidence_pages) for r in results if r.ok),
        "seconds": round(sum(r.seconds for r in results), 2),
        # Batch-wide notes (e.g. a model that is not installed) once, not once per file.
        "warnings": sorted({w for r in results for w in r.warnings if _batch_wide(w)}),
    }


def _batch_wide(warning: str) -> bool:
    return "model is not installed" in warning


def _line(r: FileResult) -> str:
    if r.status in ("ingested", "replaced"):
        pages = f"{r.pages} pages, " if r.pages else ""
        ocr = (
            f", {len(r.needs_ocr_pages)} pages need OCR (p. {_pages(r.needs_ocr_pages)})"
            if r.needs_ocr_pages
            else ""
        )
        if r.ocr_pages:
            ocr += f", {len(r.ocr_pages)} pages OCR'd (confidence {r.ocr_confidence or 0:.0f}/100)"
        if r.low_confidence_pages:
            ocr += f", low OCR confidence on p. {_pages(r.low_confidence_pages)}: check them against the scan"
        if r.bates:
            ocr += f", Bates {r.bates}"
        verb = "ingested" if r.status == "ingested" else "replaced (changed file)"
        return f"  OK   {r.name}: {verb}, {pages}{r.chunks} chunks{ocr} ({r.seconds:.1f}s){near_note(r.near_duplicate_of)}"
    if r.status == "duplicate":
        return f"  DUP  {r.name}: already ingested as '{r.duplicate_of}' (use --force to re-ingest)"
    tag = "OCR " if r.status == "needs_ocr" else "FAIL"
    hint = f" {r.hint}" if r.hint else ""
    return f"  {tag} {r.name}: {r.error}{hint}"


def near_note(near: dict[str, Any] | None) -> str:
    """ "; a near-duplicate of 'Contract.pdf' (98% the same; 12 words, 3 lines changed)" """
    if not near:
        return ""
    return (
        f"; a near-duplicate of '{near['name']}' ({near['similarity']:.0%} the same; "
        f"{near['words_changed']} words, {near['lines_changed']} lines changed)"
    )


def _contained(r: FileResult, indent: str = "    ") -> None:
    """An e-mail's attachments and a mailbox's messages, each on its own line under it."""
    from casetrack.ingest.pipeline import FileResult

    for part in [*r.attachments, *r.messages]:
        inner = FileResult(**part)
        click.echo(indent + _line(inner).lstrip())
        _contained(inner, indent + "  ")


def _pages(numbers: list[int], most: int = 10) -> str:
    return ", ".join(map(str, numbers[:most])) + (
        f" and {len(numbers) - most} more" if len(numbers) > most else ""
    )


def _report(case: str, results: list[FileResult], as_json: bool, not_read: Sequence[FileResult] = ()) -> None:
    """The batch's per-file lines and summary (or its JSON). `not_read`: the folder's files of a
    type CaseTrack does not read, named and counted (also in --json), never an error."""
    write_qc_report(results)  # --report: before the exit status below, so failed batches get theirs too
    summary = {**_summary(results), "not_read": len(not_read)}
    if as_json:
        files = [r.to_json() for r in results]
        unread = [{"name": r.name, "path": r.path, "error": r.error} for r in not_read]
        click.echo(json.dumps({"case": case, "summary": summary, "files": files, "not_read": unread}))
    else:
        for r in results:
            click.echo(_line(r))
            for warning in r.warnings if r.ok else []:
                if not _batch_wide(warning):
                    click.echo(f"       note: {warning}")
            _contained(r)
        _not_read_lines(not_read)
        click.echo(
            f"{summary['files']} files: {summary['ingested'] + summary['replaced']} ingested, "
            f"{summary['duplicates']} duplicates, {summary['needs_ocr']} need OCR, {summary['errors']} failed; "
            f"{summary['pages']} pages, {summary['chunks']} chunks"
            + (f", {summary['ocr_pages']} pages OCR'd" if summary["ocr_pages"] else "")
            + "."
        )
        for warning in summary["warnings"]:
            click.secho(f"Note: {warning}", fg="yellow", err=True)
    if summary["errors"] or summary["needs_ocr"]:
        sys.exit(EXIT_PARTIAL)


def _not_read_lines(not_read: Sequence[FileResult], most: int = 20) -> None:
    if not not_read:
        return
    names = ", ".join(r.name for r in not_read[:most])
    more = f" and {len(not_read) - most} more" if len(not_read) > most else ""
    click.echo(
        f"  SKIP {len(not_read)} file{'s' if len(not_read) != 1 else ''} of a type CaseTrack does not read: "
        f"{names}{more}. If they hold case documents, save them as PDF, DOCX or TXT and ingest those."
    )


def _run(
    ctx: click.Context,
    case: str,
    paths: list[Path],
    force: bool,
    password: str | None,
    as_json: bool,
    label: str = "",
    skipped: Sequence[FileResult] = (),
    not_read: Sequence[FileResult] = (),
) -> None:
    """`skipped`: folder entries not ingested (links leaving the folder, loops), reported first;
    `not_read`: a folder's files of types CaseTrack does not read, named after them."""
    case_name, results = ingest_paths(ctx, case, paths, force, password, label)
    _report(case_name, [*skipped, *results], as_json, not_read)


def ingest_paths(
    ctx: click.Context,
    case: str,
    paths: list[Path],
    force: bool = False,
    password: str | None = None,
    label: str = "",
) -> tuple[str, list[FileResult]]:
    """Ingest with a progress bar, in the daemon when it runs, else here: (the case's name, results)."""
    settings = ctx.find_root().obj
    from casetrack.daemon.client import ping

    # CASETRACK_CLI_DAEMON=never: this process does the work even when a daemon runs (the case's
    # writer lock keeps the two apart; a daemon job waits for it).
    if cli_daemon_mode() != "never" and ping(settings):
        return _run_in_daemon(ctx, case, paths, force, password, label)
    app = get_app(ctx)
    bar = _Bar(len(paths))
    try:
        results = app.ingest(
            case, paths, force=force, password=password, on_file=bar.on_file, progress=bar.on_stage
        )
    finally:
        bar.close()
    return app.registry.get(case).name, results


def _run_in_daemon(
    ctx: click.Context, case: str, paths: list[Path], force: bool, password: str | None, label: str
) -> tuple[str, list[FileResult]]:
    """The daemon runs: it is the case's single writer, so the files go to it as a job (which goes on,
    and resumes after a restart, even if this command is interrupted)."""
    from casetrack.daemon import client
    from casetrack.ingest.pipeline import FileResult

    bar = _Bar(len(paths))
    done = [0]
    announced = [False]

    def on_event(event: dict[str, Any]) -> None:
        job = event.get("job") or {}
        if not announced[0] and job.get("id"):
            announced[0] = True
            click.echo(
                f"Ingesting in the CaseTrack daemon as job {job['id']} "
                "(it continues if this command is interrupted).",
                err=True,
            )
        if bar._bar is not None:
            bar._bar.update(int(job.get("done", 0)) - done[0])
            done[0] = int(job.get("done", 0))
            if job.get("current"):
                bar._bar.current_item = f"{str(job['current'])[:32]} ({job.get('stage') or ''})"
            bar._bar.render_progress()

    args = {
        "case": case,
        "paths": [os.path.abspath(p) for p in paths],
        "force": force,
        "password": password,
        "label": label or (str(paths[0]) if len(paths) == 1 else f"{len(paths)} files"),
        "follow": True,
    }
    try:
        job = client.call(ctx.find_root().obj, "ingest", args, on_event=on_event)
    finally:
        if bar._bar is not None:
            bar._bar.__exit__(None, None, None)
    results = [FileResult(**r) for r in job["results"]]
    if job["status"] == "failed":
        from casetrack.errors import CaseTrackError

        raise CaseTrackError(str(job.get("error")), job.get("hint"))
    return str(job["case_name"]), results


_case_option = case_option
_force_option = click.option("--force", is_flag=True, help="Re-ingest files that are already in the case.")
_json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON report on stdout.")


@click.command("ingest")
@_case_option
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@_force_option
@click.option("--password", default=None, help="Password for encrypted PDFs.")
@_json_option
@report_option
@click.pass_context
def ingest(
    ctx: click.Context, case: str, paths: tuple[Path, ...], force: bool, password: str | None, as_json: bool
) -> None:
    """Ingest files (PDF, DOCX, TXT, MD, RTF, HTML; PNG, JPEG and TIFF images; e-mails: .eml, Outlook .msg and
    .mbox, attachments included) into a case; scanned pages are OCR'd.

    Exit status: 0 when every file is in the case, 3 when some failed or need OCR.
    """
    _run(ctx, case, list(paths), force, password, as_json)


@click.command("ingest-folder")
@_case_option
@click.argument("folder", type=click.Path(path_type=Path, file_okay=False))
@click.option("--recursive", "-r", is_flag=True, help="Include sub-folders.")
@_force_option
@click.option(
    "--sync",
    "mirror",
    is_flag=True,
    help="Make the case mirror FOLDER: renamed files followed, documents "
    "whose file is gone removed (listed first); the case remembers it for `casetrack sync`.",
)
@click.option("--dry-run", is_flag=True, help="With --sync: print the plan only, change nothing.")
@_json_option
@report_option
@click.pass_context
def ingest_folder(
    ctx: click.Context,
    case: str,
    folder: Path,
    recursive: bool,
    force: bool,
    mirror: bool,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Ingest every supported file in FOLDER; new and changed files only, unless --force."""
    if mirror or dry_run:  # `casetrack sync --case X FOLDER` (cli/sync_cmds.py), looked up: no import cycle
        if not mirror or force:
            from casetrack.errors import CaseTrackError

            raise CaseTrackError(
                "--dry-run needs --sync." if not mirror else "--force cannot be part of a sync.",
                f'casetrack ingest-folder --case "{case}" "{folder}" --sync --dry-run',
            )
        top = ctx.find_root()
        assert isinstance(top.command, click.Group)
        sync = top.command.get_command(top, "sync")
        assert sync is not None
        ctx.invoke(sync, case=case, folder=folder, recursive=recursive, dry_run=dry_run, as_json=as_json)
        return

    scan = scan_folder(folder, recursive)  # a missing folder said before the imports below (~2 s)
    from casetrack.app.qc_report import unread_files
    from casetrack.ingest.pipeline import FileResult

    paths = list(scan.files)
    not_read = unread_files(folder, recursive, [str(p) for p in paths])
    if not paths and not scan.skipped and not as_json:
        click.echo(
            f"No supported files in {folder}"
            + ("" if recursive else " (add --recursive for sub-folders)")
            + "."
        )
    skipped = [
        FileResult(
            path=str(s.path), name=s.name, status="error", error=s.reason, error_code=s.code, hint=s.hint
        )
        for s in scan.skipped
    ]
    _run(ctx, case, paths, force, None, as_json, label=str(folder), skipped=skipped, not_read=not_read)


@click.command("reocr")
@_case_option
@click.option("--document", "documents", multiple=True, help="Only this document (name or id); repeatable.")
@_json_option
@click.pass_context
def reocr(ctx: click.Context, case: str, documents: tuple[str, ...], as_json: bool) -> None:
    """OCR what a case could not read before: documents with pages that need OCR, and scans that
    were refused (ingested before OCR existed, or while tesseract was missing). With --document,
    ingest those documents again from their files.

    Exit status: 0 when every file is in the case, 3 when some still failed.
    """
    paths = get_app(ctx).ocr_targets(case, documents)
    if not paths:
        click.echo("Nothing to OCR: no document has pages that need OCR, and no scan was refused.")
        return
    _run(ctx, case, paths, True, None, as_json, label=f"reocr: {len(paths)} files")
