"""`casetrack table` (an evidence table: the best cited passages for each question, as a file) and
`casetrack eval` (how well the case answers questions whose answers the firm knows).

Both ask one search per question through `read()`: the data directory's daemon answers when it
runs (models loaded), this process otherwise; a progress bar on stderr counts the questions.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from casetrack.cli.common import case_option, read
from casetrack.errors import CaseTrackError

if TYPE_CHECKING:
    from casetrack.app.case_eval import EvalQuestion, EvalReport, KnownRow
    from casetrack.app.evidence import Asked, EvidenceRow
    from casetrack.domain.views import SearchJson

T = TypeVar("T")


@contextmanager
def _progress(items: Sequence[T], label: str) -> Iterator[Iterator[T]]:
    """The items, with a progress bar on stderr when it is a terminal (silent for scripts)."""
    if not sys.stderr.isatty():
        yield iter(items)
        return
    with click.progressbar(
        items,
        label=label,
        file=sys.stderr,
        show_pos=True,
        item_show_func=lambda q: str(getattr(q, "question", q))[:40] if q is not None else "",
    ) as bar:
        yield iter(bar)


def _search(
    ctx: click.Context,
    case: str,
    asked: Asked,
    top_k: int,
    per_document: bool = False,
) -> SearchJson:
    args = {"case": case, "query": asked.question, "top_k": top_k, "per_document": per_document}
    args |= {"keywords": list(asked.keywords), "likely_wording": asked.likely_wording}
    response: SearchJson = read(ctx, "search", args)
    return response


def _case_name(ctx: click.Context, case: str) -> str:
    """The case's name; a case that does not exist fails here, once, with its fix."""
    return str(read(ctx, "case_info", {"case": case})["name"])


@click.command("table")
@case_option
@click.argument("questions_file", metavar="QUESTIONS", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="The table to write: .csv, .xlsx or .docx (by its extension).",
)
@click.option(
    "--per-question",
    default=3,
    show_default=True,
    type=click.IntRange(1, 20),
    help="Best passages per question.",
)
@click.option(
    "--by-document", is_flag=True, help="Each row a different document's best passage for the question."
)
@click.option("--json", "as_json", is_flag=True, help="Also print the rows as one JSON object on stdout.")
@click.pass_context
def table(
    ctx: click.Context,
    case: str,
    questions_file: Path,
    out: Path,
    per_question: int,
    by_document: bool,
    as_json: bool,
) -> None:
    """Build an evidence table: for each question in QUESTIONS (one per line; blank lines and # comments
    skipped; or a .csv with a `question` column) the best cited passages, one row each (question, rank,
    citation, document, page, lines, passage, score, match, no_good_match), ready for a memo.

    The passage is the pin-cite's text (the lines that answer), else the passage's; score is the result's
    relevance (0-1); no_good_match=yes means nothing in the case clearly answers that question.
    """
    from casetrack.app.evidence import EVIDENCE_COLUMNS, evidence_rows, read_asked, search_top_k
    from casetrack.app.tabular import table_format, write_table

    table_format(out)  # a wrong extension fails before any search
    asked = read_asked(questions_file)
    questions = [a.question for a in asked]
    name = _case_name(ctx, case)
    rows: list[EvidenceRow] = []
    with _progress(asked, "Searching") as items:
        for one in items:
            response = _search(ctx, case, one, search_top_k(per_question, by_document), by_document)
            rows += evidence_rows(one.question, response, per_question, by_document)
    written = write_table(out, EVIDENCE_COLUMNS, rows, title=f"Evidence table: {name}")
    weak = sum(1 for q in questions if any(r["question"] == q and r["no_good_match"] for r in rows))
    if as_json:
        click.echo(
            json.dumps(
                {"case": name, "out": str(written), "questions": len(questions), "rows": rows},
                ensure_ascii=False,
            )
        )
    else:
        click.echo(
            f"{len(rows)} rows for {len(questions)} questions written to {written}"
            + (f"; {weak} questions have no good match (marked no_good_match)." if weak else ".")
        )


def _verifier(ctx: click.Context, case: str) -> Callable[[str, str, int | None, int | None, int | None], str]:
    def verify(
        quote: str, document: str, page: int | None, line_start: int | None, line_end: int | None
    ) -> str:
        args = {
            "case": case,
            "quote": quote,
            "document": document,
            "page": page,
            "line_start": line_start,
            "line_end": line_end,
        }
        return str(read(ctx, "verify_citation", args)["verdict"])

    return verify


def _evaluate(ctx: click.Context, case: str, known: list[KnownRow]) -> list[EvalQuestion]:
    from casetrack.app.case_eval import DEPTH, failed, judge, resolve_documents
    from casetrack.app.evidence import Asked

    documents = read(ctx, "list_documents", {"case": case})
    ids = resolve_documents([k["document"] for k in known], documents)
    verify = _verifier(ctx, case)
    rows: list[EvalQuestion] = []
    with _progress(known, "Evaluating") as items:
        for row in items:
            if row["problem"]:
                rows.append(failed(row, row["problem"]))
                continue
            try:
                asked = Asked(row["question"], tuple(row["keywords"]), row["likely_wording"])
                rows.append(judge(row, ids[row["document"]], _search(ctx, case, asked, DEPTH), verify))
            except CaseTrackError as e:  # counted as a miss, never dropped
                rows.append(failed(row, e.message))
    return rows


def _print_report(report: EvalReport) -> None:
    for r in report["rows"]:
        expected = r["document"] + (f", p. {r['page']}" if r["page"] is not None else "")
        if r["rank"] is not None:
            click.echo(f"  {r['rank']:>4}  {r['question']}  ->  {r['found']}")
        else:
            why = (
                f" ({r['error']})"
                if r["error"]
                else (f"; first result: {r['top']}" if r["top"] else "; no results")
            )
            click.secho(f"  MISS  {r['question']}  (expected {expected}{why})", fg="yellow")
    n = report["questions"]
    click.echo(
        f"hit@1 {report['hit_at_1']:.2f} ({report['hits_at_1']}/{n}), hit@5 {report['hit_at_5']:.2f} "
        f"({report['hits_at_5']}/{n}), MRR@{report['depth']} {report['mrr']:.2f}; {report['misses']} of {n} "
        f"questions missed the top {report['depth']}."
    )


@click.command("eval")
@case_option
@click.argument("known_file", metavar="KNOWN.csv", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the figures and every question's outcome as one JSON object.",
)
@click.pass_context
def evaluate(ctx: click.Context, case: str, known_file: Path, as_json: bool) -> None:
    """Check how well this case answers questions whose answers you know, before relying on it.

    KNOWN.csv has a header row `question,document,page` or `question,document,quote` (document: its name or
    id as `casetrack documents list` shows it). Each question is searched; a result is a HIT when it is in
    the expected document and, when the row gives a quote, the quote is on the result's page (matched as
    `casetrack verify` matches: exact or close; unpaged documents: inside the result's passage), else, when
    it gives a page, the result is on that page, else (document only) anywhere in the document. Reports
    hit@1, hit@5 and MRR over the top 10 results, the rank of each question's first hit, and the questions
    that MISS (a question that fails to search or names a document the case lacks is a miss).

    Exit status 0 whatever the figures (1 only when the case or the file cannot be read).
    """
    from casetrack.app.case_eval import read_known, summarise

    known = read_known(known_file)
    name = _case_name(ctx, case)
    report = summarise(name, _evaluate(ctx, case, known))
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False))
    else:
        _print_report(report)
