"""`casetrack chronology`: the case's dated events, sorted, each with its pin-cite, as a
.csv/.xlsx/.docx file (`--out`, written as `casetrack table` writes), JSON (`--json`) or a
readable list. One `read("chronology")`: the daemon answers when it runs, this process otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from casetrack.cli.common import case_option, read

if TYPE_CHECKING:
    from casetrack.domain.views import ChronologyJson


def _print(answer: ChronologyJson) -> None:
    for e in answer["events"]:
        when = e["date"] + ("" if e["precision"] == "day" else " (month)")
        click.echo(f"{when:<18} {e['citation']}")
        click.echo(f"                   {e['sentence'][:300]}")
    click.echo(_summary(answer))


def _summary(answer: ChronologyJson) -> str:
    about = f" about {answer['query']!r}" if answer["query"] else ""
    undated = len(answer["undated_documents"])
    return (
        f"{answer['total']} dated events{about} in {answer['documents']} documents of '{answer['case']}'"
        + (f"; {undated} documents hold no dated event." if undated else ".")
    )


@click.command("chronology")
@case_option
@click.option("--from", "date_from", metavar="YYYY-MM-DD", help="Only events on or after this day.")
@click.option("--to", "date_to", metavar="YYYY-MM-DD", help="Only events on or before this day.")
@click.option(
    "--document",
    "documents",
    multiple=True,
    metavar="NAME",
    help="Only this document (name or ID; repeatable).",
)
@click.option("--query", metavar="TEXT", help="Only the events in the passages a search finds for TEXT.")
@click.option(
    "--out",
    "out",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the chronology to this file: .csv, .xlsx or .docx (by its extension).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the events as one JSON object on stdout.")
@click.pass_context
def chronology(
    ctx: click.Context,
    case: str,
    date_from: str | None,
    date_to: str | None,
    documents: tuple[str, ...],
    query: str | None,
    out: Path | None,
    as_json: bool,
) -> None:
    """Build the case's chronology: every sentence that dates an event (dates written in English or
    Portuguese, relative ones such as "the next day" or "the date hereof" resolved), sorted by date,
    each with the document's type and the pin-cite (document, page, paragraph, lines).

    Running headers, citations' dates and statutes' dates are left out. Columns of --out: date,
    precision (day or month), event, citation, document, doc_type, page, lines, date_text.
    """
    from casetrack.app.chronology import CHRONOLOGY_COLUMNS, chronology_rows
    from casetrack.app.tabular import table_format, write_table

    if out is not None:
        table_format(out)  # a wrong extension fails before the case is read
    args = {"case": case, "date_from": date_from, "date_to": date_to, "documents": list(documents)}
    answer: ChronologyJson = read(ctx, "chronology", args | {"query": query})
    written = None
    if out is not None:
        rows = chronology_rows(answer["events"])
        written = write_table(out, CHRONOLOGY_COLUMNS, rows, title=f"Chronology: {answer['case']}")
    if as_json:
        click.echo(json.dumps({**answer, "out": str(written) if written else None}, ensure_ascii=False))
    elif written is not None:
        click.echo(f"{_summary(answer)} Written to {written}")
    else:
        _print(answer)
