"""`--report PATH` of `ingest` and `ingest-folder`: the batch's QC report as a file (app/qc_report.py).

The option stores its path in the command's context (checked before the ingest starts, so a wrong
extension fails at once); `write_qc_report` writes it from the batch's results when the batch ends,
also when some files failed, whether the files were ingested here or by the daemon.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from casetrack.ingest.pipeline import FileResult

_KEY = QC_REPORT_KEY = (
    "casetrack.qc_report"  # ctx.meta: shared with `sync`, which ingest-folder --sync invokes
)


def _remember(ctx: click.Context, _param: click.Parameter, value: Path | None) -> None:
    if value is None:
        return
    from casetrack.app.tabular import table_format

    table_format(value)  # an unknown extension is an error now, not after an hour of OCR
    if value.is_dir():
        raise click.BadParameter(
            f"{value} is a folder; give a file name such as qc.csv.", ctx=ctx, param=_param
        )
    ctx.meta[_KEY] = value


def report_option(fn: Any) -> Any:
    return click.option(
        "--report",
        type=click.Path(path_type=Path),
        default=None,
        expose_value=False,
        callback=_remember,
        is_eager=False,
        metavar="FILE",
        help="Also write a QC report, one row per file (status, pages, OCR'd pages and confidence, blank pages, "
        "duplicates, problems with their fix, Bates range, document type): .csv, .xlsx or .docx by the "
        "file's extension.",
    )(fn)


def write_qc_report(results: Sequence[FileResult]) -> None:
    """Write the report the command's --report asked for (nothing when it did not), and say where."""
    ctx = click.get_current_context(silent=True)
    target: Path | None = ctx.meta.get(_KEY) if ctx is not None else None
    if ctx is None or target is None:
        return
    from casetrack.app.qc_report import QC_COLUMNS, qc_rows, unread_files
    from casetrack.app.tabular import write_table

    listed = [*results]
    folder = ctx.params.get("folder")
    if isinstance(folder, Path):  # ingest-folder: the files the walk passed over by type, too
        listed += unread_files(folder, bool(ctx.params.get("recursive")), [r.path for r in results])
    rows = qc_rows(listed)
    written = write_table(target, QC_COLUMNS, rows, title="CaseTrack ingest QC report")
    click.echo(f"QC report ({len(rows)} rows) written to {written}", err=True)
