"""`casetrack case ...`: create, list, info, use (the default case), close/reopen/archive, delete,
export/import."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from casetrack.cli.common import default_case, get_app, set_default_case
from casetrack.domain.cases import CASE_TYPES, LANGUAGES, CaseStatus
from casetrack.errors import CaseTrackError


def _when(ts: float) -> str:
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


@click.group()
def case() -> None:
    """Create and manage cases (one isolated store per matter)."""


@case.command("create")
@click.argument("name")
@click.option("--type", "case_type", type=click.Choice(CASE_TYPES), default="other", show_default=True)
@click.option(
    "--language",
    type=click.Choice(LANGUAGES),
    default="en",
    show_default=True,
    help="Main language of the documents (pt: Portuguese stemming and the multilingual model).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the case as JSON.")
@click.pass_context
def create(ctx: click.Context, name: str, case_type: str, language: str, as_json: bool) -> None:
    """Create a case named NAME."""
    record = get_app(ctx).create_case(name, case_type, language)
    if as_json:
        click.echo(json.dumps(record.to_json()))
        return
    click.echo(f"Created case '{record.name}' (id {record.id}, {record.case_type}, {record.language}).")
    click.echo(f'Next: casetrack ingest-folder --case "{record.name}" FOLDER')


@case.command("list")
@click.option("--all", "show_all", is_flag=True, help="Include archived cases.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
@click.pass_context
def list_cases(ctx: click.Context, show_all: bool, as_json: bool) -> None:
    """List cases, most recently used first."""
    records = get_app(ctx).registry.list(include_archived=show_all or as_json)
    if as_json:
        click.echo(json.dumps([r.to_json() for r in records]))
        return
    if not records:
        click.echo('No cases yet. Create one: casetrack case create "Smith v. Jones"')
        return
    width = max(len(r.name) for r in records)
    for r in records:
        click.echo(
            f"{r.name:<{width}}  {r.id}  {r.status.value:<8}  {r.language}  {r.case_type:<12}  {_when(r.updated_at)}"
        )


@case.command("info")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def info(ctx: click.Context, name: str, as_json: bool) -> None:
    """Show a case: documents, pages, chunks, pages that need OCR."""
    summary = get_app(ctx).case_summary(name)
    if as_json:
        click.echo(json.dumps(summary))
        return
    click.echo(
        f"{summary['name']}  (id {summary['id']}, {summary['status']}, {summary['type']}, {summary['language']})"
    )
    click.echo(
        f"{summary['document_count']} documents, {summary['page_count']} pages, {summary['chunk_count']} chunks"
    )
    click.echo(f"Stored in {summary['directory']} (stored data version {summary['schema_version']})")
    if summary["settings"]["keep_revoked"]:
        click.echo(f"Revoked (struck-through) text: {_revoked_words(True)}")
    if summary["embedding_model"]:
        click.echo(f"Embedding model: {summary['embedding_model']}")
    from casetrack.app.watching import watched_folders

    watched = watched_folders(get_app(ctx), name)
    if watched:
        _print_watched(watched)
    if summary["in_progress"]:
        click.echo(f"Being ingested now: {', '.join(summary['in_progress'])}")
    for doc in summary["documents"]:
        pages = f"{doc['pages']} pp., " if doc["pages"] else ""
        ocr = (
            f", needs OCR: p. {', '.join(map(str, doc['needs_ocr_pages']))}" if doc["needs_ocr_pages"] else ""
        )
        ocr += f", {len(doc['ocr_pages'])} pages OCR'd" if doc["ocr_pages"] else ""
        click.echo(f"  {doc['name']}  ({pages}{doc['chunks']} chunks{ocr})")


@case.command("use")
@click.argument("name", required=False)
@click.option("--clear", is_flag=True, help="Forget the default case: commands need --case again.")
@click.option("--json", "as_json", is_flag=True, help="Print the default case as JSON.")
@click.pass_context
def use(ctx: click.Context, name: str | None, clear: bool, as_json: bool) -> None:
    """Make NAME the default case: commands run on it when --case is left out. Alone, show it.

    The default is kept in the data folder (cli.json, private to you), for the terminal only:
    Claude keeps its own active case."""
    settings = ctx.find_root().obj
    if name and clear:
        raise click.UsageError("give a case NAME or --clear, not both")
    if clear:
        set_default_case(settings, None)
    elif name:
        record = get_app(ctx).registry.get(name)
        set_default_case(settings, {"id": record.id, "name": record.name})
    current = default_case(settings)
    exists = current is not None and settings.case_dir(current["id"]).is_dir()
    if as_json:
        click.echo(json.dumps({"default_case": current, "exists": exists}, ensure_ascii=False))
    elif current is None:
        click.echo(
            "No default case" + (" any more" if clear else "") + ": commands need --case NAME. "
            "Set one: casetrack case use NAME"
        )
    elif not exists:
        click.secho(
            f"The default case '{current['name']}' no longer exists. Pick another: casetrack case use NAME, "
            "or forget it: casetrack case use --clear",
            fg="yellow",
        )
    else:
        verb = "is now" if name else "is"
        click.echo(
            f"The default case {verb} '{current['name']}' (id {current['id']}): commands use it when --case "
            "is left out."
        )


@case.command("set")
@click.argument("name")
@click.option(
    "--keep-revoked/--drop-revoked",
    "keep_revoked",
    default=None,
    help="Index struck-through (revoked) text of DOCX and HTML, marked [revogado: ...], or leave it out (the "
    "default). Applies to files ingested from now on; ingest a file again with --force to apply it there.",
)
@click.option(
    "--watch",
    "watch_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Have the daemon watch this folder: files that land there are ingested once they stop changing "
    "(nothing is ever removed).",
)
@click.option("--recursive", "-r", is_flag=True, help="With --watch: include the folder's sub-folders.")
@click.option(
    "--unwatch",
    "unwatch_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Stop watching this folder (its documents stay in the case).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the case's settings as JSON.")
@click.pass_context
def set_settings(
    ctx: click.Context,
    name: str,
    keep_revoked: bool | None,
    watch_dir: Path | None,
    recursive: bool,
    unwatch_dir: Path | None,
    as_json: bool,
) -> None:
    """Change (or, with no option, show) the settings of case NAME."""
    from casetrack.app.watching import set_watch, watched_folders

    if recursive and watch_dir is None:
        raise click.UsageError(
            f'--recursive goes with --watch: casetrack case set "{name}" --watch FOLDER --recursive'
        )
    app = get_app(ctx)
    settings = (
        app.set_case_settings(name, keep_revoked=keep_revoked)
        if keep_revoked is not None
        else (app.case_summary(name)["settings"])
    )
    watched = watched_folders(app, name)
    if unwatch_dir is not None:
        watched = set_watch(app, name, unwatch_dir, None)
    if watch_dir is not None:
        watched = set_watch(app, name, watch_dir, recursive)
    if as_json:
        click.echo(json.dumps({**settings, "watched": watched}))
        return
    click.echo(f"Revoked (struck-through) text: {_revoked_words(settings['keep_revoked'])}")
    if keep_revoked is not None:
        click.echo(
            f'Files already in the case keep their text; to apply it to one: casetrack ingest --case "{name}" '
            "FILE --force"
        )
    _print_watched(watched)
    if watch_dir is not None:
        click.echo(
            "The daemon watches it while it runs (casetrack daemon start; Claude starts it too); "
            "see what it ingested: casetrack jobs list"
        )


def _print_watched(watched: list[dict[str, Any]]) -> None:
    if not watched:
        click.echo("Watched folders: none (add one: casetrack case set NAME --watch FOLDER)")
    for f in watched:
        click.echo(f"Watched folder: {f['path']}" + (" (with sub-folders)" if f["recursive"] else ""))


def _revoked_words(keep: bool) -> str:
    return "indexed, marked [revogado: ...]" if keep else "left out of the index"


def _set_status(ctx: click.Context, name: str, status: CaseStatus) -> None:
    record = get_app(ctx).set_status(name, status)
    click.echo(f"Case '{record.name}' is now {record.status.value}.")


@case.command("close")
@click.argument("name")
@click.pass_context
def close(ctx: click.Context, name: str) -> None:
    """Mark a case closed (read-only; still searchable)."""
    _set_status(ctx, name, CaseStatus.CLOSED)


@case.command("reopen")
@click.argument("name")
@click.pass_context
def reopen(ctx: click.Context, name: str) -> None:
    """Make a closed or archived case active again."""
    _set_status(ctx, name, CaseStatus.ACTIVE)


@case.command("archive")
@click.argument("name")
@click.pass_context
def archive(ctx: click.Context, name: str) -> None:
    """Archive a case (read-only, hidden from the default list)."""
    _set_status(ctx, name, CaseStatus.ARCHIVED)


@case.command("delete")
@click.argument("name")
@click.option("--yes", is_flag=True, help="Confirm: delete the case and all its data for good.")
@click.option(
    "--json", "as_json", is_flag=True, help='Print JSON: {"deleted": NAME, "id": ID, "was_default": BOOL}.'
)
@click.pass_context
def delete(ctx: click.Context, name: str, yes: bool, as_json: bool) -> None:
    """Delete a case and everything stored for it (original files are not touched)."""
    app = get_app(ctx)
    record = app.registry.get(name, destructive=True)  # a name that is also another case's id: ask which
    if not yes:
        raise CaseTrackError(
            f"Deleting '{record.name}' removes its index and all its chunks for good.",
            f'Confirm with: casetrack case delete "{record.name}" --yes',
        )
    app.delete_case(record.id)
    default = default_case(app.settings)
    was_default = default is not None and default["id"] == record.id
    if was_default:
        set_default_case(app.settings, None)
    if as_json:
        click.echo(json.dumps({"deleted": record.name, "id": record.id, "was_default": was_default}))
        return
    click.echo(f"Deleted case '{record.name}'. Your original files were not touched.")
    if was_default:
        click.echo("It was the default case; set another: casetrack case use NAME")


@case.command("check")
@click.argument("name")
@click.option(
    "--repair", is_flag=True, help="Repair what can be repaired (rebuild derived stores from LanceDB)."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def check(ctx: click.Context, name: str, repair: bool, as_json: bool) -> None:
    """Check that a case's stores agree (journal, LanceDB, keyword index); --repair fixes them.

    Exit status: 0 healthy, 3 problems remain.
    """
    report = get_app(ctx).check_case(name, repair=repair)
    if as_json:
        click.echo(json.dumps(report))
    else:
        for line in report["repaired"]:
            click.echo(f"  repaired: {line}")
        for line in report["problems"]:
            click.secho(f"  problem:  {line}", fg="yellow")
        state = "healthy" if report["healthy"] else f"{len(report['problems'])} problem(s)"
        click.echo(
            f"Case '{report['case']}': {report['documents']} documents, {report['chunks']} chunks — {state}."
        )
        if not report["healthy"] and not repair:
            click.echo(f'Repair with: casetrack case check "{report["case"]}" --repair')
    if not report["healthy"]:
        sys.exit(3)


class _Bar:
    """A progress bar on stderr (in a terminal only), one per stage of an export or import."""

    _LABELS = {
        "export": "Exporting",
        "verify": "Verifying",
        "unpack": "Unpacking",
        "copy": "Copying",
        "reembed": "Re-embedding",
    }

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self._stage: str | None = None
        self._bar: Any = None
        self._done = 0

    def __call__(self, stage: str, done: int, total: int, what: str) -> None:
        if not self.enabled:
            return
        if stage != self._stage:
            self.close()
            self._stage, self._done = stage, 0
            self._bar = click.progressbar(
                length=max(total, 1), label=self._LABELS.get(stage, stage), file=sys.stderr
            )
            self._bar.__enter__()
        self._bar.update(max(done - self._done, 0), current_item=what[-40:])
        self._done = done

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None


@case.command("export")
@click.argument("name")
@click.argument("file", type=click.Path(dir_okay=True, path_type=Path))
@click.option(
    "--no-sources",
    is_flag=True,
    help="Leave the original files out (metadata, text, vectors and index only).",
)
@click.option("--force", is_flag=True, help="Replace FILE if it exists.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def export(ctx: click.Context, name: str, file: Path, no_sources: bool, force: bool, as_json: bool) -> None:
    """Write case NAME to one portable archive FILE.ctcase (checksummed; private to you)."""
    from casetrack.app.portable import export_case

    bar = _Bar()
    try:
        report = export_case(get_app(ctx), name, file, not no_sources, force, bar)
    finally:
        bar.close()
    if as_json:
        click.echo(json.dumps(report.to_json(), ensure_ascii=False))
        return
    for warning in report.warnings:
        click.secho(f"  warning: {warning}", fg="yellow", err=True)
    what = (
        f"{report.sources} original files" if report.sources_included else "no original files (--no-sources)"
    )
    click.echo(
        f"Exported '{report.case}': {report.documents} documents, {report.chunks} chunks, {what} -> "
        f"{report.path} ({report.bytes / 1e6:.1f} MB, {report.seconds:.1f} s)."
    )
    click.echo(f'Import it elsewhere with: casetrack case import "{report.path}"')


@case.command("import")
@click.argument("source", type=click.Path(path_type=Path))
@click.option("--as", "new_name", default=None, help="Name for the imported case (default: the name it had).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def import_(ctx: click.Context, source: Path, new_name: str | None, as_json: bool) -> None:
    """Add a case from a .ctcase archive, or from a case folder copied from another data folder.

    Every checksum is checked before anything is written; the case gets a new id; it is re-embedded
    when this computer's models differ from the ones it was embedded with."""
    from casetrack.app.portable import import_case

    bar = _Bar()
    try:
        report = import_case(get_app(ctx), source, new_name, bar)
    finally:
        bar.close()
    if as_json:
        click.echo(json.dumps(report.to_json(), ensure_ascii=False))
        return
    for warning in report.warnings:
        click.secho(f"  warning: {warning}", fg="yellow", err=True)
    case_json = report.case
    if report.models_differed:
        click.echo(
            f"  re-embedded {len(report.reembedded)} documents: this computer's models differ "
            f"({', '.join(sorted(report.models_differed))})"
        )
    click.echo(
        f"Imported '{case_json['name']}' (id {case_json['id']}, {case_json['status']}): {report.documents} "
        f"documents, {report.chunks} chunks, {report.sources} original files ({report.seconds:.1f} s)."
    )
    click.echo(f'Next: casetrack search --case "{case_json["name"]}" "your question"')
