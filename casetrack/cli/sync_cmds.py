"""A case that mirrors folders: `ingest-folder --sync`, `casetrack sync` and `casetrack watch`.

A sync plans first (ingest/folder_sync.py: add, update, rename, remove, unchanged, duplicate,
unsupported, still being copied), prints the plan, then applies it: the documents whose file is
gone are listed, then removed; renamed files are followed without ingesting them again; new and
changed files are ingested as `ingest-folder` does (in the daemon when it runs). `--dry-run`
prints the plan only. `watch` polls a folder and ingests what lands once it stops changing; it
removes nothing unless asked with `--sync`.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from casetrack.cli.common import EXIT_PARTIAL, case_option, get_app
from casetrack.errors import CaseTrackError
from casetrack.ingest.folder_sync import DEFAULT_SETTLE_S, WATCH_INTERVAL_S

if TYPE_CHECKING:
    from casetrack.app.core import CaseTrack
    from casetrack.app.watching import FolderWatch
    from casetrack.ingest.folder_sync import SyncPlan
    from casetrack.ingest.pipeline import FileResult

SETTLE_HELP = "Seconds a file must stay unchanged before it is read (a file still being copied waits)."


def run_sync(
    ctx: click.Context,
    case: str,
    folders: list[tuple[Path, bool]],
    dry_run: bool,
    as_json: bool,
    settle_s: float | None = None,
) -> None:
    """Sync each (folder, recursive) into `case`; one JSON object for all with `as_json`."""
    from casetrack.app.qc_report import sync_results
    from casetrack.app.syncing import apply_moves, plan_folder, remember
    from casetrack.cli.qc_option import QC_REPORT_KEY, write_qc_report

    app = get_app(ctx)
    name = app.registry.get(case).name
    outputs: list[dict[str, Any]] = []
    reported: list[FileResult] = []  # ingest-folder --sync --report: the rows of every folder
    partial = False
    for folder, recursive in folders:
        plan = plan_folder(app, case, folder, recursive, DEFAULT_SETTLE_S if settle_s is None else settle_s)
        if not as_json:
            print_plan(plan, name, dry_run)
        output: dict[str, Any] = {"plan": plan.to_json()}
        outputs.append(output)
        if dry_run:
            continue
        warnings = _kept_warning(plan, name)
        applied = apply_moves(app, case, plan, remove=not warnings, on_line=None if as_json else click.echo)
        results = _ingest(ctx, case, plan)
        remember(app, case, plan, results)
        if not as_json:
            _print_results(results)
        output.update(applied.to_json(), **_results_json(results), warnings=warnings)
        reported += [*sync_results(plan, applied), *results]
        partial = partial or any(r.status in ("error", "needs_ocr") for r in results)
    if not dry_run:
        write_qc_report(reported)  # before the exit status: a sync with failures gets its report too
    elif ctx.meta.get(QC_REPORT_KEY) is not None:
        click.echo("No QC report with --dry-run: nothing was ingested.", err=True)
    if as_json:
        click.echo(json.dumps({"case": name, "dry_run": dry_run, "folders": outputs}))
    elif dry_run:
        click.echo("Dry run: nothing was changed.")
    if partial:
        sys.exit(EXIT_PARTIAL)


def _kept_warning(plan: SyncPlan, case: str) -> list[str]:
    """A folder found empty keeps its documents (say so, on stderr): [] when nothing is held back."""
    if not (plan.remove and plan.folder_empty):
        return []
    count = sum(len(r.documents) for r in plan.remove)
    warning = (
        f"{plan.folder} holds no file at all: its {count} documents were kept (an unplugged drive looks "
        f'the same). If the files are really gone: casetrack documents delete --case "{case}" NAME --yes'
    )
    click.secho(f"Note: {warning}", fg="yellow", err=True)
    return [warning]


def _ingest(ctx: click.Context, case: str, plan: SyncPlan) -> list[FileResult]:
    from casetrack.cli.ingest_cmds import ingest_paths

    paths = plan.to_ingest()
    return ingest_paths(ctx, case, paths, label=f"sync {plan.folder}")[1] if paths else []


def _results_json(results: list[FileResult]) -> dict[str, Any]:
    from casetrack.cli.ingest_cmds import _summary

    return {"summary": _summary(results), "files": [r.to_json() for r in results]}


def _print_results(results: list[FileResult]) -> None:
    from casetrack.cli.ingest_cmds import _contained, _line, _summary

    for r in results:
        click.echo(_line(r))
        _contained(r)
    if results:
        s = _summary(results)
        click.echo(
            f"{s['files']} files: {s['ingested'] + s['replaced']} ingested, {s['duplicates']} duplicates, "
            f"{s['needs_ocr']} need OCR, {s['errors']} failed; {s['pages']} pages, {s['chunks']} chunks."
        )


def print_plan(plan: SyncPlan, case: str, dry_run: bool) -> None:
    c = plan.counts()
    where = " (with sub-folders)" if plan.recursive else ""
    click.echo(
        f'{"Plan" if dry_run else "Syncing"} {plan.folder}{where} -> case "{case}": '
        f"{c['add']} new, {c['update']} changed, {c['rename']} renamed, {c['remove']} gone "
        f"({c['remove_documents']} documents to remove), {c['unchanged']} unchanged"
        + (f", {c['duplicate']} duplicates" if c["duplicate"] else "")
        + (f", {c['unsupported']} unsupported (listed before)" if c["unsupported"] else "")
        + (f", {c['in_progress']} still being copied" if c["in_progress"] else "")
        + "."
    )
    for f in plan.add:
        click.echo(f"  add     {f.name}")
    for ch in plan.update:
        click.echo(f"  update  {ch.file.name} (changed)")
    for ch in plan.rename:
        click.echo(f"  rename  {ch.document} -> {ch.file.name} (same content: not ingested again)")
    for r in plan.remove:
        click.echo(
            f"  remove  {Path(r.source_path).name}: gone from the folder; removes {', '.join(r.documents)}"
        )
    for ch in plan.duplicate:
        click.echo(f"  same    {ch.file.name}: same content as '{ch.document}', already in the case")
    for f in plan.unsupported:
        click.echo(f"  skip    {f.name}: skipped (unsupported, listed before)")
    for f in plan.in_progress:
        click.echo(f"  wait    {f.name}: still being copied, will be picked up next sync")
    for s in plan.skipped:
        click.secho(f"  skip    {s.name}: {s.reason} {s.hint}", fg="yellow")


_settle_option = click.option(
    "--settle",
    "settle_s",
    type=click.FloatRange(min=0),
    default=None,
    help=f"{SETTLE_HELP} [default: {DEFAULT_SETTLE_S:g}]",
)


@click.command("sync")
@case_option
@click.argument("folder", required=False, type=click.Path(path_type=Path, file_okay=False))
@click.option("--recursive", "-r", is_flag=True, help="With FOLDER: include its sub-folders.")
@click.option("--dry-run", is_flag=True, help="Print the plan only; change nothing.")
@click.option(
    "--forget",
    "forget",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Stop mirroring this folder (its documents stay in the case).",
)
@_settle_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: each folder's plan and report.")
@click.pass_context
def sync(
    ctx: click.Context,
    case: str,
    folder: Path | None,
    recursive: bool,
    dry_run: bool,
    forget: Path | None,
    settle_s: float | None,
    as_json: bool,
) -> None:
    """Make the case mirror FOLDER (the same as `ingest-folder --sync`), or every folder it mirrors:
    new and changed files ingested, renamed files followed, documents whose file is gone removed
    (listed first). The case remembers each folder synced.

    Exit status: 0 when the case mirrors its folders, 3 when some files failed or need OCR.
    """
    from casetrack.app.syncing import forget as forget_folder
    from casetrack.app.syncing import remembered_folders

    app = get_app(ctx)
    if forget is not None:
        if not forget_folder(app, case, forget):
            raise CaseTrackError(
                f"The case does not mirror {forget}.",
                f'See its folders: casetrack sync --case "{case}" --dry-run',
            )
        click.echo(f"No longer mirroring {forget}; its documents stay in the case.")
        return
    if folder is not None:
        run_sync(ctx, case, [(folder, recursive)], dry_run, as_json, settle_s)
        return
    folders = remembered_folders(app, case)
    if not folders:
        raise CaseTrackError(
            "This case mirrors no folder yet.",
            f'Sync one first: casetrack ingest-folder --case "{case}" FOLDER --sync',
        )
    run_sync(ctx, case, [(Path(f["path"]), f["recursive"]) for f in folders], dry_run, as_json, settle_s)


@click.command("watch")
@case_option
@click.argument("folder", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option("--recursive", "-r", is_flag=True, help="Include sub-folders.")
@click.option(
    "--interval",
    type=click.FloatRange(min=0.2),
    default=WATCH_INTERVAL_S,
    show_default=True,
    help="Seconds between two looks at the folder.",
)
@click.option(
    "--settle",
    "settle_s",
    type=click.FloatRange(min=0),
    default=DEFAULT_SETTLE_S,
    show_default=True,
    help=SETTLE_HELP,
)
@click.option(
    "--sync",
    "mirror",
    is_flag=True,
    help="Also remove from the case the documents whose file leaves the folder (off: nothing is removed).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object per line for each look that did something: the files waiting, the "
    "documents removed and renamed, each file's ingest result and their summary.",
)
@click.pass_context
def watch(
    ctx: click.Context,
    case: str,
    folder: Path,
    recursive: bool,
    interval: float,
    settle_s: float,
    mirror: bool,
    as_json: bool,
) -> None:
    """Watch FOLDER and ingest each new or changed file once it has stopped changing (a consume
    folder); renamed files are followed. Runs until Ctrl-C. Removes nothing unless --sync.
    (The daemon can watch a folder for a case too: casetrack case set NAME --watch FOLDER.)"""
    from casetrack.app.watching import FolderWatch

    app = get_app(ctx)
    name = app.registry.get(case).name
    removal = (
        "files deleted from the folder are removed from the case"
        if mirror
        else "nothing is removed from the case"
    )
    click.echo(
        f'Watching {folder} for case "{name}" every {interval:g}s: new and changed files are ingested once '
        f"unchanged for {settle_s:g}s; {removal}. Ctrl-C stops.",
        err=True,
    )
    state = FolderWatch(folder, recursive, settle_s)
    try:
        while True:
            try:
                _watch_once(ctx, app, case, mirror, state, as_json)
            except CaseTrackError as e:  # the folder unplugged, the case busy: said once, tried again
                if state.failed(e.message):
                    click.secho(f"Error: {e.message} (trying again every {interval:g}s)", fg="red", err=True)
            else:
                state.recovered()
            time.sleep(interval)
    except KeyboardInterrupt:
        click.echo("Stopped watching.", err=True)


def _watch_once(
    ctx: click.Context, app: CaseTrack, case: str, mirror: bool, state: FolderWatch, as_json: bool = False
) -> None:
    """One look at the folder (app/watching.py: a plan only when something changed or waits to
    settle), then apply it here."""
    from casetrack.app.syncing import Applied, apply_moves

    plan = state.look(app, case)
    if plan is None:
        return
    waiting = [f.name for f in state.new_waiting]
    for name in [] if as_json else waiting:
        click.echo(f"  wait    {name}: still being copied, will be picked up once it stops changing")
    remove = mirror and not _kept_warning(plan, case)
    applied, results = Applied(), []
    if plan.add or plan.update or plan.rename or (remove and plan.remove):
        applied = apply_moves(app, case, plan, remove=remove, on_line=None if as_json else click.echo)
        results = _ingest(ctx, case, plan)
        if not as_json:
            _print_results(results)
        state.done(plan, results)
    if as_json and (waiting or results or applied.removed or applied.renamed):
        click.echo(
            json.dumps(
                {
                    "folder": str(plan.folder),
                    "waiting": waiting,
                    **applied.to_json(),
                    **_results_json(results),
                }
            )
        )
